package qdranttest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strings"

	qc "github.com/qdrant/go-client/qdrant"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/bm25"
	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/provider/embedx/fakeapi"
)

// Collection names of the built-in textbook.
const (
	// CollectionA holds the textbook with schema A (flat payload).
	CollectionA = "textbook"
	// CollectionB holds the textbook with schema B (LangChain-like nested
	// metadata, named vector "dense").
	CollectionB = "textbook_langchain"
	// CollectionHybrid holds the textbook as a hybrid collection: named
	// dense vector "dense" beside the BM25 sparse vector "bm25" (idf).
	CollectionHybrid = "textbook_hybrid"
	// BaseURL is the site the textbook's URLs point at.
	BaseURL = "https://example.github.io/robotics-book"
)

// chapter is one chapter of the synthetic textbook.
type chapter struct {
	module, slug, title string
	content             string // content type
	sections            []string
	sentences           []string
}

var book = []chapter{
	{"module-1-ros2", "01-what-is-ros2", "What is ROS 2", "lesson", []string{"Why ROS 2", "DDS middleware"},
		[]string{"ROS 2 is the Robot Operating System, a middleware framework for robot software.", "ROS 2 uses DDS for discovery and real-time communication between processes.", "Distributions of ROS 2 such as Humble are released with long term support."}},
	{"module-1-ros2", "02-nodes-topics-services", "Nodes, topics and services", "lesson", []string{"Nodes", "Topics and publishers", "Services"},
		[]string{"A node is a process that performs computation in the ROS graph.", "Topics carry messages from publishers to subscribers asynchronously.", "A publisher sends messages on a topic; a subscriber receives them in a callback.", "Services are synchronous request and response calls between nodes."}},
	{"module-1-ros2", "03-rclpy-python-nodes", "Writing Python nodes with rclpy", "lab", []string{"Installing rclpy", "A minimal publisher"},
		[]string{"rclpy is the Python client library for ROS 2 nodes.", "Create a Python node class that inherits from rclpy Node and spin it.", "Timers in rclpy call a Python callback at a fixed rate."}},
	{"module-1-ros2", "05-urdf-humanoids", "URDF for humanoids", "lesson", []string{"Links and joints", "Humanoid kinematic chains"},
		[]string{"URDF describes a robot's links, joints and inertial properties in XML.", "A humanoid URDF has kinematic chains for legs, arms and the torso.", "Joint limits in URDF bound the angles of revolute joints."}},
	{"module-2-simulation", "01-gazebo-basics", "Gazebo simulation basics", "lesson", []string{"Worlds", "Physics engines"},
		[]string{"Gazebo simulates robots in worlds with physics, sensors and lighting.", "Physics engines compute gravity, friction and collisions each simulation step.", "Spawn a robot model into a Gazebo world from its URDF or SDF file."}},
	{"module-2-simulation", "02-sensors", "Simulating sensors", "lab", []string{"Cameras", "LiDAR", "IMU"},
		[]string{"Simulated cameras publish images with configurable noise and resolution.", "A LiDAR sensor plugin casts rays and publishes point clouds.", "The IMU plugin reports orientation, angular velocity and linear acceleration."}},
	{"module-2-simulation", "03-unity-digital-twin", "Unity digital twins", "lesson", []string{"Digital twin", "ROS TCP connector"},
		[]string{"A digital twin mirrors a physical robot in a Unity scene for visualisation.", "The ROS TCP connector streams ROS 2 messages into Unity.", "High fidelity rendering in Unity helps human robot interaction studies."}},
	{"module-2-simulation", "04-sim-to-real", "From simulation to reality", "reference", []string{"Domain randomization", "Reality gap"},
		[]string{"Domain randomization varies textures, lighting and masses during training.", "The reality gap is the difference between simulated and real robot behaviour.", "System identification tunes simulation parameters from real measurements."}},
	{"module-3-isaac", "01-isaac-sim", "NVIDIA Isaac Sim", "lesson", []string{"Omniverse", "Synthetic data"},
		[]string{"Isaac Sim is NVIDIA's robot simulator built on Omniverse and USD.", "Synthetic data generation in Isaac Sim produces labelled images for perception.", "Isaac Sim runs physics on the GPU with PhysX."}},
	{"module-3-isaac", "02-isaac-ros", "Isaac ROS and perception", "lesson", []string{"GEMs", "Visual SLAM"},
		[]string{"Isaac ROS packages accelerate perception on NVIDIA Jetson GPUs.", "Visual SLAM estimates the camera pose and builds a map at the same time.", "Stereo depth estimation turns two camera images into a depth map."}},
	{"module-3-isaac", "03-nav2", "Navigation with Nav2", "lab", []string{"Costmaps", "Path planning"},
		[]string{"Nav2 is the ROS 2 navigation stack for mobile robots.", "Costmaps mark obstacles and inflation zones around them for the planner.", "The path planner finds a route and the controller follows it."}},
	{"module-3-isaac", "04-reinforcement-learning", "Reinforcement learning for locomotion", "reference", []string{"Policies", "Reward shaping"},
		[]string{"Reinforcement learning trains a walking policy by trial and reward.", "Reward shaping encourages stable gait, low energy and forward velocity.", "Thousands of parallel environments in Isaac Lab speed up policy training."}},
	{"module-4-vla", "01-vision-language-action", "Vision-language-action models", "lesson", []string{"VLA overview", "Tokenizing actions"},
		[]string{"Vision-language-action models map camera images and instructions to robot actions.", "Actions are tokenized so a transformer can predict them like words.", "VLA models generalize to new objects described in natural language."}},
	{"module-4-vla", "02-voice-commands", "Voice commands with Whisper", "lab", []string{"Speech recognition", "Intent parsing"},
		[]string{"Whisper transcribes spoken voice commands into text.", "An LLM parses the transcribed command into a sequence of robot tasks.", "Latency of speech recognition matters for natural conversation."}},
	{"module-4-vla", "03-llm-planning", "Planning with large language models", "lesson", []string{"Task decomposition", "Grounding"},
		[]string{"Large language models decompose a goal into steps the robot can execute.", "Grounding checks each planned step against what the robot can perceive.", "Prompting with the available skills keeps plans executable."}},
	{"module-4-vla", "04-capstone", "Capstone: the autonomous humanoid", "project", []string{"Requirements", "Evaluation"},
		[]string{"The capstone humanoid receives a voice command, plans, navigates and grasps an object.", "Evaluation measures task success rate and time to completion.", "Teams document their system design and demo video."}},
}

// ChunksPerChapter is the number of chunks of each chapter.
const ChunksPerChapter = 10

// Textbook returns the synthetic textbook's chunks (160: 16 chapters of 10
// chunks) in a fixed order, with every field filled.
func Textbook() []retrieval.Chunk {
	var out []retrieval.Chunk
	for ci, ch := range book {
		for j := 0; j < ChunksPerChapter; j++ {
			sec := ch.sections[j%len(ch.sections)]
			text := fmt.Sprintf("%s %s (Part %d of %s.)",
				ch.sentences[j%len(ch.sentences)], ch.sentences[(j+1)%len(ch.sentences)], j+1, ch.title)
			sum := sha256.Sum256([]byte(text))
			tags := []string{strings.SplitN(ch.module, "-", 3)[2], ch.content}
			if j%3 == 0 {
				tags = append(tags, "key-concept")
			}
			out = append(out, retrieval.Chunk{
				ID:          fmt.Sprint(ci*ChunksPerChapter + j + 1),
				Text:        text,
				URL:         fmt.Sprintf("%s/docs/%s/%s#%s", BaseURL, ch.module, ch.slug, slug(sec)),
				DocPath:     fmt.Sprintf("docs/%s/%s.md", ch.module, ch.slug),
				Title:       ch.title,
				Section:     sec,
				Breadcrumb:  []string{ch.title, sec},
				Module:      ch.module,
				Chapter:     ch.title,
				ChunkIndex:  retrieval.IntPtr(j),
				TotalChunks: retrieval.IntPtr(ChunksPerChapter),
				ContentType: ch.content,
				Tags:        tags,
				ContentHash: hex.EncodeToString(sum[:]),
			})
		}
	}
	return out
}

func slug(s string) string {
	return strings.ReplaceAll(strings.ToLower(s), " ", "-")
}

func strs(ss []string) *qc.Value {
	vals := make([]*qc.Value, len(ss))
	for i, s := range ss {
		vals[i] = qc.NewValueString(s)
	}
	return qc.NewValueFromList(vals...)
}

// PayloadA encodes a chunk with schema A: text, url, title, section_title,
// module, chapter, chunk_index, total_chunks, content_hash, tags (a list),
// content_type, doc_path. Empty fields are left out.
func PayloadA(c retrieval.Chunk) map[string]*qc.Value {
	p := map[string]*qc.Value{}
	set := func(k, v string) {
		if v != "" {
			p[k] = qc.NewValueString(v)
		}
	}
	set("text", c.Text)
	set("url", c.URL)
	set("title", c.Title)
	set("section_title", c.Section)
	set("module", c.Module)
	set("chapter", c.Chapter)
	set("content_hash", c.ContentHash)
	set("content_type", c.ContentType)
	set("doc_path", c.DocPath)
	if c.ChunkIndex != nil {
		p["chunk_index"] = qc.NewValueInt(int64(*c.ChunkIndex))
	}
	if c.TotalChunks != nil {
		p["total_chunks"] = qc.NewValueInt(int64(*c.TotalChunks))
	}
	if c.Tags != nil {
		p["tags"] = strs(c.Tags)
	}
	return p
}

// PayloadB encodes a chunk with schema B: content, source_url, page_title,
// headings (a list: breadcrumb), metadata{source_file, module_name,
// chapter_title, position, content_hash, tags, content_type}.
func PayloadB(c retrieval.Chunk) map[string]*qc.Value {
	md := map[string]*qc.Value{
		"source_file":   qc.NewValueString(c.DocPath),
		"module_name":   qc.NewValueString(c.Module),
		"chapter_title": qc.NewValueString(c.Chapter),
		"content_hash":  qc.NewValueString(c.ContentHash),
		"content_type":  qc.NewValueString(c.ContentType),
		"tags":          strs(c.Tags),
		"ingested_by":   qc.NewValueString("langchain-qdrant"),
	}
	if c.ChunkIndex != nil {
		md["position"] = qc.NewValueInt(int64(*c.ChunkIndex))
	}
	heads := c.Breadcrumb
	if len(heads) == 0 && c.Section != "" {
		heads = []string{c.Section}
	}
	return map[string]*qc.Value{
		"content":    qc.NewValueString(c.Text),
		"source_url": qc.NewValueString(c.URL),
		"page_title": qc.NewValueString(c.Title),
		"headings":   strs(heads),
		"metadata":   qc.NewValueFromFields(md),
	}
}

// Embed is the fake Cohere vector of a chunk's text.
func Embed(text string) []float32 { return fakeapi.Vector(text, coheretest.Dim) }

// TextbookA is the textbook as a schema A collection (unnamed 1024-d
// cosine vector, indexes on module, chapter, content_type and tags).
func TextbookA() Collection {
	c := Collection{Name: CollectionA, Dim: coheretest.Dim, Indexed: map[string]qc.PayloadSchemaType{
		"module": qc.PayloadSchemaType_Keyword, "chapter": qc.PayloadSchemaType_Keyword,
		"content_type": qc.PayloadSchemaType_Keyword, "tags": qc.PayloadSchemaType_Keyword,
	}}
	for _, ch := range Textbook() {
		var id uint64
		fmt.Sscan(ch.ID, &id)
		c.Points = append(c.Points, Point{ID: id, Vector: Embed(ch.Text), Payload: PayloadA(ch)})
	}
	return c
}

// TextbookB is the textbook as a schema B collection (UUID ids, named
// vector "dense", an index on metadata.module_name).
func TextbookB() Collection {
	c := Collection{Name: CollectionB, VectorName: "dense", Dim: coheretest.Dim, Indexed: map[string]qc.PayloadSchemaType{
		"metadata.module_name": qc.PayloadSchemaType_Keyword,
	}}
	for i, ch := range Textbook() {
		c.Points = append(c.Points, Point{
			UUID:    fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1),
			Vector:  Embed(ch.Text),
			Payload: PayloadB(ch),
		})
	}
	return c
}

// TextbookHybrid is the textbook as a hybrid collection (schema A
// payload): the named dense vector "dense" and the sparse vector "bm25"
// with the idf modifier, holding each chunk's qdrant/bm25 document
// vector, as a chatbot's ingestion builds it.
func TextbookHybrid() Collection {
	c := TextbookA()
	c.Name, c.VectorName = CollectionHybrid, "dense"
	c.Sparse = map[string]qc.Modifier{"bm25": qc.Modifier_Idf}
	for i, ch := range Textbook() {
		c.Points[i].Sparse = map[string]bm25.Vector{"bm25": SparseBM25(ch.Text)}
	}
	return c
}

// StartREST serves what Qdrant's REST port answers a gRPC client: HTTP/2
// (cleartext) 404s without a gRPC content type. It returns the address
// host:port and a stop function.
func StartREST() (string, func(), error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
	})}
	srv.Protocols = new(http.Protocols)
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	go func() { _ = srv.Serve(lis) }()
	return lis.Addr().String(), func() { _ = srv.Close() }, nil
}
