//go:build !unix

package readlimit

// openNonblock is 0 where named pipes are not files (Open describes the
// path before opening it).
const openNonblock = 0
