package splitmix

import "testing"

// gamma is SplitMix64's increment, the golden ratio in 64 bits.
const gamma = 0x9E3779B97F4A7C15

// TestMix64ReferenceOutputs checks Mix64 against the published SplitMix64
// sequences (Rosetta Code, "Pseudo-random numbers/Splitmix64", and the
// generator seeded with 0), whose n-th output is Mix64(seed + n*gamma).
func TestMix64ReferenceOutputs(t *testing.T) {
	for _, c := range []struct {
		seed uint64
		want []uint64
	}{
		{1234567, []uint64{6457827717110365317, 3203168211198807973, 9817491932198370423, 4593380528125082431, 16408922859458223821}},
		{0, []uint64{0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F, 0xF88BB8A8724C81EC, 0x1B39896A51A8749B}},
	} {
		state := c.seed
		for i, want := range c.want {
			state += gamma
			if got := Mix64(state); got != want {
				t.Errorf("seed %d, output %d: Mix64 = %d, want %d", c.seed, i+1, got, want)
			}
		}
	}
}
