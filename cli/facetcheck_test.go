package cli

import (
	"strings"
	"testing"
)

// An unknown --module or --chapter is a usage error naming the known
// values, closest first, on a local book (modules found under its
// docs/modules/ wrapper) and on Qdrant; a known one that matches nothing
// is still "No results".
func TestUnknownModuleListsKnownOnes(t *testing.T) {
	docs := writeModulesBook(t)
	code, out, errs := run(t, nil, "", "query", "--docs", docs, "--module", "module-2-digital-twin", "robots")
	if code != ExitConfig || !strings.Contains(errs, `--module "module-2-digital-twin": no such module in this collection; its modules: module-2, module-1`) {
		t.Errorf("local: exit %d\n%s\n%s", code, out, errs)
	}
	code, _, errs = run(t, nil, "", "query", "--docs", docs, "--chapter", "gazbo", "robots")
	if code != ExitConfig || !strings.Contains(errs, `--chapter "gazbo": no such chapter in this collection; its chapters: gazebo,`) {
		t.Errorf("local chapter: exit %d\n%s", code, errs)
	}
	code, out, errs = run(t, nil, "", "query", "--docs", docs, "--module", "module-2", "zzzqqq")
	if code != ExitNoResults || !strings.Contains(out, "No results") {
		t.Errorf("known module, no hit: exit %d\n%s\n%s", code, out, errs)
	}
	_, _, env := fakes(t)
	code, out, errs = run(t, env, "", "query", "--module", "module-1-ros", "how do ROS 2 nodes communicate?")
	if code != ExitConfig || !strings.Contains(errs, `--module "module-1-ros": no such module in this collection; its modules: module-1-ros2,`) {
		t.Errorf("qdrant: exit %d\n%s\n%s", code, out, errs)
	}
}
