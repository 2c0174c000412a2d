package links

import (
	"ragscope/retrieval/docusaurus"
	"testing"
)

// Markdown heading source -> the id Docusaurus gives it. Expected values
// follow the rules in /work/shared/API-NOTES.md section 3 (text content
// with markup removed, then github-slugger): a numbered "1.1 Intro" is
// "11-intro"; Docusaurus's own docs show "### Hello World {#my-explicit-id}".
func TestMarkdownHeadingIDs(t *testing.T) {
	tests := []struct{ md, want string }{
		{"1.1 Intro", "11-intro"},
		{"Step 1: Describe the World", "step-1-describe-the-world"},
		{"URDF vs. SDF", "urdf-vs-sdf"},
		{"What's a Digital Twin?", "whats-a-digital-twin"},
		{"Sensors & Actuators", "sensors--actuators"},
		{"Sensors &amp; Actuators", "sensors--actuators"},
		{"What is `rclpy`?", "what-is-rclpy"},
		{"The `use_sim_time` Convention", "the-use_sim_time-convention"},
		{"[ROS 2](https://docs.ros.org) basics", "ros-2-basics"},
		{"**Bold** and *italic* and _under_", "bold-and-italic-and-under"},
		{"snake_case_name", "snake_case_name"},
		{`Escaped \*stars\*`, "escaped-stars"},
		{"🚀 Quick Start", "-quick-start"},
		{"C++ & C#", "c--c"},
		{"Version 2.0.1 notes", "version-201-notes"},
		{"Привет, мир!", "привет-мир"},
		{"日本語の見出し", "日本語の見出し"},
		{"Ünïcödé Äccents", "ünïcödé-äccents"},
		{"Hello <span>World</span>", "hello-world"},
	}
	for _, tt := range tests {
		if got := docusaurus.GitHubSlug(MarkdownHeadingText(tt.md)); got != tt.want {
			t.Errorf("id of %q = %q, want %q", tt.md, got, tt.want)
		}
	}
}
