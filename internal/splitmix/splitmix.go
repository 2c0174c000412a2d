// Package splitmix holds the SplitMix64 finaliser, the mixing step that
// spreads the bits of a 64-bit hash (an FNV sum, a product of keys) so
// that its low bits, used for buckets, and its top bit, used for signs,
// depend on every input bit.
package splitmix

// Mix64 is SplitMix64's output function (Stafford's variant 13): two
// xor-shift-multiply rounds and a last xor-shift. The SplitMix64
// generator's n-th output is Mix64(seed + n*0x9E3779B97F4A7C15).
func Mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
