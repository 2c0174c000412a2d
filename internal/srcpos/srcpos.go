// Package srcpos words where in an input a problem is, as compilers do:
// "name:line: ".
package srcpos

import "strconv"

// Prefix is the start of a message about line of the input name:
// "name:line: ", "name: " without a line (line 0), "line: " without a
// name, "" without either.
func Prefix(name string, line int) string {
	s := ""
	if name != "" {
		s = name + ":"
	}
	if line > 0 {
		s += strconv.Itoa(line) + ":"
	}
	if s != "" {
		s += " "
	}
	return s
}
