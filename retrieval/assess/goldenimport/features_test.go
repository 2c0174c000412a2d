package goldenimport

import (
	"context"
	"fmt"
	"testing"
)

// The features worked out ahead come in input order, chunk after chunk,
// each that of its own question.
func TestFeatureStreamInOrder(t *testing.T) {
	qs := make([]Question, 3*featureChunk+5)
	for i := range qs {
		qs[i] = Question{Text: fmt.Sprintf("Question %d: How do I tune ROS2's node %d?", i, i%7), Line: i + 1}
	}
	n := 0
	for chunk := range featureStream(context.Background(), qs) {
		for _, f := range chunk {
			want := featuresOf(qs[n].Text)
			if f.norm != want.norm || f.joined != want.joined || string(f.rs) != want.norm || f.sig != want.sig || f.hist != want.hist || f.digits != want.digits {
				t.Fatalf("question %d: features %+v, want %+v", n, f, want)
			}
			n++
		}
	}
	if n != len(qs) {
		t.Fatalf("%d features for %d questions", n, len(qs))
	}
	if f := featuresOf("ROS 2, node-3"); f.norm != "ros 2 node 3" || f.joined != "\x00ros2node3" || f.digits != "2 3" {
		t.Errorf("featuresOf = %+v", f)
	}
}

// A cancelled stream closes its channel without sending every chunk.
func TestFeatureStreamStops(t *testing.T) {
	qs := make([]Question, 64*featureChunk)
	for i := range qs {
		qs[i] = Question{Text: fmt.Sprintf("question %d", i)}
	}
	ctx, cancel := context.WithCancel(context.Background())
	stream := featureStream(ctx, qs)
	<-stream
	cancel()
	chunks := 1
	for range stream {
		chunks++
	}
	if chunks == len(qs)/featureChunk {
		t.Errorf("all %d chunks sent after the cancel", chunks)
	}
}
