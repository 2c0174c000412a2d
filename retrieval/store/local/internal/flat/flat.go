// Package flat reads and writes slices of fixed-size numbers as
// little-endian blocks, the layout of ragscope's index files. On a
// little-endian machine a block that starts at an 8-byte boundary is used
// in place, with no copy: loading an index is then reading the file.
package flat

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// Align is the boundary every block starts at, relative to the start of
// the buffer it is read from.
const Align = 8

// littleEndian tells whether this machine stores numbers as the file does.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// Pad appends zero bytes to b up to the next multiple of Align.
func Pad(b []byte) []byte {
	for len(b)%Align != 0 {
		b = append(b, 0)
	}
	return b
}

// PadLen is the number of padding bytes Pad adds after n bytes.
func PadLen(n int) int { return (Align - n%Align) % Align }

// AppendFloat32s appends v as little-endian float32s.
func AppendFloat32s(b []byte, v []float32) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// AppendInt32s appends v as little-endian int32s.
func AppendInt32s(b []byte, v []int32) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}

// AppendUint64s appends v as little-endian uint64s.
func AppendUint64s(b []byte, v []uint64) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	return b
}

// inPlace tells whether b can be used as a slice of T in place.
func inPlace(b []byte, size uintptr) bool {
	return littleEndian && len(b) > 0 && uintptr(unsafe.Pointer(&b[0]))%size == 0
}

// Float32s returns b (len(b)/4 numbers) as []float32: b itself when it can
// be, else a copy. The result shares b's memory: b must not change after.
func Float32s(b []byte) []float32 {
	return numbers(b, func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) })
}

// Int32s returns b (len(b)/4 numbers) as []int32, like Float32s.
func Int32s(b []byte) []int32 {
	return numbers(b, func(b []byte) int32 { return int32(binary.LittleEndian.Uint32(b)) })
}

// Uint64s returns b (len(b)/8 numbers) as []uint64, like Float32s.
func Uint64s(b []byte) []uint64 {
	return numbers(b, binary.LittleEndian.Uint64)
}

// numbers returns b as []T, sharing its memory when inPlace allows, else
// a copy decoded number by number with at (given the number's bytes).
func numbers[T float32 | int32 | uint64](b []byte, at func([]byte) T) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	n := len(b) / size
	if inPlace(b, uintptr(size)) {
		return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
	}
	v := make([]T, n)
	for i := range v {
		v[i] = at(b[size*i:])
	}
	return v
}

// String returns b as a string sharing b's memory: b must not change after.
func String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
