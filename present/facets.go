package present

import "ragscope/retrieval"

// FacetWithLabel is a module or chapter value with its label, when the
// chunk has one that says more than the value: "module-1 (Module 1: ROS 2)".
func FacetWithLabel(value, label string) string {
	if value == "" || label == "" || label == value {
		return value
	}
	return value + " (" + label + ")"
}

// Module is c's module with its sidebar label (retrieval.ExtraModuleLabel).
func Module(c *retrieval.Chunk) string {
	return FacetWithLabel(c.Module, c.Extra[retrieval.ExtraModuleLabel])
}

// Chapter is c's chapter with its sidebar label (retrieval.ExtraChapterLabel).
func Chapter(c *retrieval.Chunk) string {
	return FacetWithLabel(c.Chapter, c.Extra[retrieval.ExtraChapterLabel])
}
