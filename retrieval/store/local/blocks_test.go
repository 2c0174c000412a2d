package local

import (
	"fmt"
	"strings"
	"testing"

	"ragscope/retrieval"
)

// filler is a paragraph of about n characters.
func filler(tag string, n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%s sentence %d goes on here. ", tag, i)
	}
	return strings.TrimSpace(b.String())
}

// inOneChunk fails unless exactly one chunk holds want whole, and no
// other chunk holds any of its lines that are not in want's first chunk.
func inOneChunk(t *testing.T, cs []retrieval.Chunk, want string) {
	t.Helper()
	n := 0
	for _, c := range cs {
		if strings.Contains(c.Text, want) {
			n++
		}
	}
	if n != 1 {
		for _, c := range cs {
			t.Logf("%s (%d): %q", c.ID, runeLen(c.Text), c.Text)
		}
		t.Fatalf("%d chunks hold the block whole, want 1: %q", n, want)
	}
}

// A block that would straddle the size limit moves whole to the next
// chunk: fences (blank lines inside), tables, admonitions (blank lines
// and a fence inside), list items (a blank line and an indented
// continuation inside) and paragraphs are never cut.
func TestBlocksNeverCut(t *testing.T) {
	blocks := map[string]string{
		"fence":      "```xml\n<robot name=\"a\">\n\n  <link name=\"base\"/>\n\n</robot>\n```",
		"table":      "| joint | range |\n|---|---|\n| hip | 90 |\n| knee | 120 |\n| ankle | 45 |",
		"admonition": ":::warning Heavy\n\nKeep the robot tethered.\n\n```bash\nros2 run tether node\n```\n\nAlways.\n:::",
		"list":       "- First item of the list.\n\n  Its second paragraph, indented.\n- Second item.\n  1. nested one\n  2. nested two\n- Third item.",
		"paragraph":  filler("Para", 300),
	}
	for name, b := range blocks {
		t.Run(name, func(t *testing.T) {
			// The block starts at about 90% of the chunk size: packing
			// greedily by lines would cut it.
			src := "## S\n\n" + filler("Lead", 440) + "\n\n" + b + "\n\n" + filler("Tail", 200) + "\n"
			cs, _ := chunkOne(t, "docs/p.md", src, ChunkOptions{MaxChars: 500})
			if len(cs) < 2 {
				t.Fatalf("%d chunks, want a split", len(cs))
			}
			inOneChunk(t, cs, b)
			for _, c := range cs {
				if runeLen(c.Text) > 500 {
					t.Errorf("chunk %s: %d characters", c.ID, runeLen(c.Text))
				}
			}
		})
	}
}

// A fence longer than the chunk size is split at line boundaries into
// parts of near-equal size, each a valid fence with the same opening
// line, which together hold the code's lines in order.
func TestLongFenceSplitIntoValidFences(t *testing.T) {
	var code []string
	for i := range 120 {
		code = append(code, fmt.Sprintf("    <joint name=\"j%d\" type=\"revolute\"/>", i))
	}
	src := "## URDF\n\n```xml title=\"robot.urdf\"\n" + strings.Join(code, "\n") + "\n```\n"
	cs, _ := chunkOne(t, "docs/p.md", src, ChunkOptions{MaxChars: 1500})
	if len(cs) < 3 {
		t.Fatalf("%d chunks, want the fence split", len(cs))
	}
	var got []string
	minN, maxN := 1<<30, 0
	for _, c := range cs {
		n := runeLen(c.Text)
		minN, maxN = min(minN, n), max(maxN, n)
		if n > 1500 {
			t.Errorf("chunk %s: %d characters", c.ID, n)
		}
		body, ok := strings.CutPrefix(c.Text, "## URDF\n\n```xml title=\"robot.urdf\"\n")
		if !ok || !strings.HasSuffix(body, "\n```") {
			t.Fatalf("chunk %s is not a fence with the opening line: %q", c.ID, c.Text)
		}
		got = append(got, strings.Split(strings.TrimSuffix(body, "\n```"), "\n")...)
	}
	if strings.Join(got, "\n") != strings.Join(code, "\n") {
		t.Errorf("the code's lines were lost or reordered")
	}
	if minN*10 < maxN*8 {
		t.Errorf("parts of %d to %d characters: want near-equal", minN, maxN)
	}
}

// An over-long table repeats its header in every part; an over-long list
// is cut between items.
func TestLongTableAndListSplit(t *testing.T) {
	var rows, items []string
	for i := range 60 {
		rows = append(rows, fmt.Sprintf("| motor %d | %d Nm |", i, i*3))
		items = append(items, fmt.Sprintf("- Step %d: tighten bolt %d.", i, i))
	}
	head := "| motor | torque |\n|---|---|"
	cs, _ := chunkOne(t, "docs/p.md", "## T\n\n"+head+"\n"+strings.Join(rows, "\n")+"\n", ChunkOptions{MaxChars: 400})
	for _, c := range cs {
		if !strings.HasPrefix(c.Text, "## T\n\n"+head+"\n| motor ") {
			t.Errorf("table part without its header: %q", c.Text)
		}
	}
	cs, _ = chunkOne(t, "docs/p.md", "## L\n\n"+strings.Join(items, "\n")+"\n", ChunkOptions{MaxChars: 400})
	var got []string
	for _, c := range cs {
		got = append(got, strings.Split(strings.TrimPrefix(c.Text, "## L\n\n"), "\n")...)
	}
	if len(cs) < 3 || strings.Join(got, "\n") != strings.Join(items, "\n") {
		t.Errorf("%d chunks; items %q", len(cs), got)
	}
}

// Headings with no text of their own, thematic breaks and import lines
// never make a chunk: a #### heading leads the block after it, a ##
// heading with no text before its first ### leads that subsection's
// first chunk (cited there), and a section of nothing but a thematic
// break gives no chunk.
func TestNoEmptyChunks(t *testing.T) {
	big := "```xml\n" + strings.Repeat("<mass value=\"0.01\"/>\n", 40) + "```"
	src := "import Tabs from '@theme/Tabs';\n\n# Title\n\n## Part\n\n### Child\n\nChild text here.\n\n" +
		"## Break\n\n---\n\n## Sensors\n\nIntro words.\n\n#### IMU\n\n" + big + "\n\n---\n"
	cs, _ := chunkOne(t, "docs/p.md", src, ChunkOptions{MaxChars: 500})
	for _, c := range cs {
		body := c.Text
		for _, l := range strings.Split(body, "\n") {
			if strings.HasPrefix(l, "import ") || l == "---" {
				t.Errorf("chunk %s holds %q", c.ID, l)
			}
		}
		if wordsOutsideHeadings(body) == 0 {
			t.Errorf("chunk %s is headings only: %q", c.ID, body)
		}
	}
	if cs[0].Section != "Child" || !strings.HasPrefix(cs[0].Text, "## Part\n\n### Child\n\nChild text") {
		t.Errorf("first chunk %s: %q", cs[0].Section, cs[0].Text)
	}
	for _, c := range cs {
		if c.Section == "Break" {
			t.Errorf("a chunk for a section of a thematic break: %q", c.Text)
		}
		if strings.Contains(c.Text, "#### IMU") && !strings.Contains(c.Text, "#### IMU\n\n```xml") {
			t.Errorf("#### IMU does not lead its fence: %q", c.Text)
		}
	}
}

func wordsOutsideHeadings(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "#") {
			n += wordCount(l)
		}
	}
	return n
}

// A # heading in the body ends the section above it and, having no
// anchor in Docusaurus, is cited at the page.
func TestSecondTitleEndsSection(t *testing.T) {
	src := "# Title\n\n## Setup\n\nInstall it.\n\n# Launch Gazebo\n\nRun the launcher.\n"
	cs, _ := chunkOne(t, "docs/p.md", src, ChunkOptions{})
	if len(cs) != 2 || cs[0].Section != "Setup" || strings.Contains(cs[0].Text, "Run the") ||
		cs[1].Section != "" || cs[1].HeadingID != "" || !strings.HasPrefix(cs[1].Text, "# Launch Gazebo\n\nRun") {
		for _, c := range cs {
			t.Logf("%q %q", c.Section, c.Text)
		}
		t.Fatalf("chunks")
	}
}

func TestBalanceNearEqual(t *testing.T) {
	sizes := []int{10, 10, 10, 10, 10, 10, 10, 10, 10, 10}
	if got := fmt.Sprint(balance(sizes, 0, 40)); got != "[0 3 6]" && got != "[0 4 7]" && got != "[0 3 7]" {
		t.Errorf("starts %s: want three parts of 3 or 4", got)
	}
	if got := fmt.Sprint(balance([]int{50, 1, 1}, 0, 40)); got != "[0 1]" {
		t.Errorf("an item over the limit: starts %s", got)
	}
	if got := fmt.Sprint(balance([]int{5, 5}, 1, 40)); got != "[0]" {
		t.Errorf("fits: %s", got)
	}
}
