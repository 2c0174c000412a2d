package embed

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

func TestEmbeddedDataChecksum(t *testing.T) {
	sum := sha256.Sum256(gloveData)
	if got := hex.EncodeToString(sum[:]); got != gloveSHA256 {
		t.Fatalf("data/glove50k.bin has SHA-256 %s, gloveSHA256 records %s: regenerate it as data/README.md says, or update both records", got, gloveSHA256)
	}
	readme, err := os.ReadFile("data/README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), gloveSHA256) {
		t.Errorf("data/README.md does not record the SHA-256 %s", gloveSHA256)
	}
}

func TestGloveTable(t *testing.T) {
	g, err := loadGlove()
	if err != nil {
		t.Fatal(err)
	}
	if g.dim != gloveDim {
		t.Fatalf("dim %d, want %d", g.dim, gloveDim)
	}
	if n := g.rows(); n < 50000 || n > 51000 {
		t.Errorf("%d words, want the 50,000 most frequent plus a few hundred domain words", n)
	}
	for _, w := range []string{"the", "robot", "simulation", "humanoid", "gazebo", "lidar", "kinematics", "quaternion", "gripper"} {
		if g.lookup(w) < 0 {
			t.Errorf("%q is missing", w)
		}
	}
	if g.lookup("rclpy") >= 0 || g.lookup("") >= 0 {
		t.Error("unexpected words in the table")
	}
	// Rows are in frequency order, "the" first.
	if r := g.lookup("the"); r != 0 || g.ranks[r] != 0 {
		t.Errorf(`"the" is row %d with rank %d, want row 0, rank 0`, r, g.ranks[max(r, 0)])
	}
	for i := 1; i < len(g.ranks); i++ {
		if g.ranks[i] <= g.ranks[i-1] {
			t.Fatalf("ranks not increasing at row %d", i)
		}
	}
	unit := func(w string) []float32 {
		v := make([]float32, gloveDim)
		g.addScaled(v, g.lookup(w), 1)
		scale(v, float32(1/norm(v)))
		return v
	}
	if near, far := dot(unit("robot"), unit("robots")), dot(unit("robot"), unit("banana")); near < 0.6 || far > 0.3 {
		t.Errorf("cos(robot, robots) = %.3f, cos(robot, banana) = %.3f", near, far)
	}
}

func TestDecodeGloveRejectsBadData(t *testing.T) {
	bad := map[string][]byte{
		"empty":        nil,
		"wrong magic":  append([]byte("XXXXXXXX"), gloveData[8:]...),
		"header only":  gloveData[:16],
		"truncated":    gloveData[:len(gloveData)/2],
		"one byte off": gloveData[:len(gloveData)-1],
	}
	for name, b := range bad {
		if _, err := decodeGlove(b); err == nil {
			t.Errorf("%s: decodeGlove accepted malformed data", name)
		}
	}
}
