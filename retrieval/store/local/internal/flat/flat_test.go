package flat

import (
	"slices"
	"testing"
)

func TestRoundTripAlignedAndNot(t *testing.T) {
	f := []float32{0, 1.5, -2.25, 3e-8}
	i := []int32{0, -1, 1 << 30, 7}
	u := []uint64{0, 1<<63 + 5, 42}
	for _, shift := range []int{0, 1, 3} {
		// A buffer of 8-byte words, offset by shift bytes: shift 0 is
		// aligned (used in place), the others must be copied.
		raw := make([]byte, 256+8)[shift:]
		b := AppendFloat32s(raw[:0], f)
		if got := Float32s(b); !slices.Equal(got, f) {
			t.Errorf("shift %d: float32s %v", shift, got)
		}
		b = AppendInt32s(raw[:0], i)
		if got := Int32s(b); !slices.Equal(got, i) {
			t.Errorf("shift %d: int32s %v", shift, got)
		}
		b = AppendUint64s(raw[:0], u)
		if got := Uint64s(b); !slices.Equal(got, u) {
			t.Errorf("shift %d: uint64s %v", shift, got)
		}
	}
	if got := String([]byte("abc")); got != "abc" {
		t.Errorf("String = %q", got)
	}
	if len(Pad([]byte{1, 2, 3})) != 8 || PadLen(3) != 5 || PadLen(8) != 0 {
		t.Error("padding")
	}
}
