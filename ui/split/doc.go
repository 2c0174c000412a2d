// Package split is the explorer's split view (V): the results of two
// setups side by side for the same question, each row marked with where
// the other side ranks its source, and a row's chunk in the whole body.
package split
