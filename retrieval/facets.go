package retrieval

// Chunk.Extra keys under which a chunk carries the display labels of its
// module and chapter (a local index takes them from the sidebar's
// _category_ files); displays show them beside the values.
const (
	ExtraModuleLabel  = "module_label"
	ExtraChapterLabel = "chapter_label"
)
