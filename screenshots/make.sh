#!/usr/bin/env bash
# Regenerates the PNG screenshots in this folder from the real program:
# builds ragscope, drives it in a private tmux server on the embedded demo,
# captures the panes with their colours (tmux capture-pane -e -p) and
# renders them to PNG with render/ (Go, DejaVu Sans Mono).
#
# Needs: go, tmux, fonts-dejavu-core (apt-get install tmux fonts-dejavu-core).
# Usage: screenshots/make.sh   (from anywhere)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
tmp="$(mktemp -d)"
sock="ragscope-shots-$$"
cols=140
rows=42

chat_pid=
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	[ -n "$chat_pid" ] && kill "$chat_pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

(cd "$root" && go build -o "$tmp/ragscope" .)
(cd "$here/render" && go build -o "$tmp/render" .)

# A fake OpenAI-compatible chat server on a loopback port (fakechat/) for
# the Answer pane.
(cd "$root" && go build -o "$tmp/fakechat" ./screenshots/fakechat)
"$tmp/fakechat" -url-file "$tmp/chat-url" &
chat_pid=$!
for _ in $(seq 50); do [ -s "$tmp/chat-url" ] && break; sleep 0.1; done
chat_url="$(cat "$tmp/chat-url")"

# A named setup for the split view (the top level of ragscope.toml is
# empty: the other shots use the defaults). The explorer runs in $tmp, so
# the golden file S saves lands there.
printf '[setups.hybrid.local]\nsearch = "hybrid"\n' >"$tmp/ragscope.toml"

# A clean history and the demo backend, whatever the caller's environment.
session() {
	tmux -L "$sock" -f /dev/null new-session -d -s shots -x "$cols" -y "$rows" -c "$tmp" \
		"env -u EDITOR -u VISUAL -u QDRANT_URL -u RAGSCOPE_BACKEND -u COHERE_API_KEY -u OPENAI_API_KEY OPENAI_BASE_URL=$chat_url RAGSCOPE_CHAT_MODEL=llama3.2 XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache TERM=xterm-256color COLORTERM=truecolor $tmp/ragscope --backend demo $*"
	tmux -L "$sock" set-option -g status off >/dev/null
}
session

keys() { tmux -L "$sock" send-keys -t shots "$@"; sleep 0.4; }
shot() {
	tmux -L "$sock" capture-pane -t shots -e -p >"$tmp/$1.ans"
	"$tmp/render" -in "$tmp/$1.ans" -out "$here/$1.png"
	echo "wrote screenshots/$1.png"
}

sleep 1.5
keys "How do ROS 2 nodes communicate?" Enter
sleep 0.5
keys j
keys Enter
keys j j j j j j
shot results-detail

# The page the hit came from: its chunks in reading order, the hit marked.
keys p
sleep 0.5
shot page-view
keys Escape

keys c
shot context

keys Escape
keys x
keys s
shot settings-left-out

# The Answer pane: the chat model is the fake above (a local
# OpenAI-compatible server), asked only when a is pressed.
keys Escape
keys a
sleep 1.2
shot answer

# Rerank on (the offline bm25 reranker): the same question as a new turn,
# with movement against the store's order.
keys r
sleep 0.5
shot rerank

# Turn compare: the reranked turn against the same question without.
keys t
keys k
shot turns-compare

keys C-t
printf '%s\n\n%s\n' \
	"ROS 2 uses DDS as its middleware. Nodes on the same domain ID discover each other automatically, and publishers and subscribers are matched by topic name and message type." \
	"Quality of Service (QoS) profiles decide whether messages are delivered reliably or best effort, and how many are kept for subscribers that join late." \
	>"$tmp/para.txt"
tmux -L "$sock" load-buffer "$tmp/para.txt"
tmux -L "$sock" paste-buffer -p -t shots
sleep 0.4
keys Tab
keys "docs/module-1-ros2/01-what-is-ros2.md"
keys Tab
keys "From ROS 1 to ROS 2"
keys BTab BTab BTab
keys C-u "What decides whether messages are reliable?"
keys C-r
keys c
shot selected-text

# The eval view: back to normal mode, run the demo golden set, put the
# cursor on a miss.
keys C-t
keys Escape
keys e
keys Enter
sleep 1.5
keys j
shot eval

# Why not this chunk: the page a reader expected, picked with w, shown at
# its real rank with what cut it.
keys Escape
keys i
keys C-u "How do ROS 2 nodes communicate?" Enter
sleep 0.5
keys w
keys "urdf-humanoids"
keys Enter
keys Escape
sleep 0.8
keys Escape
shot why-not

# Why this score and what if: X on the expected row takes its score apart
# in the detail pane; E edits the chunk's text (a text area: no $EDITOR),
# and on ctrl+s the list shows the edit's would-be row at its rank.
keys G
keys Enter
keys X
sleep 0.8
shot why-score
keys E
sleep 0.5
keys End " A URDF file describes a robot's nodes: how ROS 2 nodes communicate through topics."
keys C-s
sleep 0.8
shot what-if

# The judge and marks: J grades the hits (the fake chat server grades by
# the question's words), M and m mark two hits, S saves the turn to
# golden.yaml as a case.
keys i
keys C-u "How do I record sensor data?" Enter
sleep 0.6
keys J
sleep 2.5
keys M
keys j j
keys m
keys S
sleep 0.6
keys Enter
shot marks-judge

keys C-c

# Setups side by side: the same question, the default BM25 on the left,
# the named setup "hybrid" on the right, with how each source moved.
sleep 0.3
session --vs hybrid
sleep 1.5
keys "how do nodes talk to each other?" Enter
sleep 0.6
keys V
sleep 1
shot split

keys C-c

# A hybrid search: the local index's dense and BM25 arms fused by RRF, each
# hit's rank in each arm beside the fused rank; the detail pane has the
# arms' scores.
sleep 0.3
session --local-search hybrid --fusion rrf
sleep 1.5
keys "how does the robot turn spoken words into text?" Enter
sleep 0.6
keys j
keys Enter
sleep 0.4
shot hybrid

keys C-c
