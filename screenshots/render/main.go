// Command render draws a terminal capture with ANSI colours (the output of
// `tmux capture-pane -e -p`) into a PNG, with DejaVu Sans Mono, so the
// screenshots show the real program's real output.
//
//	go run . -in capture.ans -out shot.png [-font /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"strconv"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

type cell struct {
	r        rune
	fg, bg   color.RGBA
	bold     bool
	hasBg    bool
	reversed bool
}

type pen struct {
	fg, bg          color.RGBA
	bold, rev, bgOn bool
}

func main() {
	in := flag.String("in", "", "capture file with ANSI escapes")
	out := flag.String("out", "", "PNG to write")
	fontDir := flag.String("fontdir", "/usr/share/fonts/truetype/dejavu", "folder with DejaVuSansMono.ttf and DejaVuSansMono-Bold.ttf")
	size := flag.Float64("size", 15, "font size in points (72 dpi)")
	flag.Parse()
	if err := run(*in, *out, *fontDir, *size); err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(1)
	}
}

var (
	defFg = color.RGBA{0xd8, 0xd8, 0xd8, 0xff}
	defBg = color.RGBA{0x1b, 0x1b, 0x22, 0xff}
)

func run(in, out, fontDir string, size float64) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return fmt.Errorf("read capture: %w", err)
	}
	grid := parse(string(data))
	regular, err := loadFace(fontDir+"/DejaVuSansMono.ttf", size)
	if err != nil {
		return err
	}
	bold, err := loadFace(fontDir+"/DejaVuSansMono-Bold.ttf", size)
	if err != nil {
		return err
	}
	adv, _ := regular.GlyphAdvance('M')
	cw := adv.Ceil()
	m := regular.Metrics()
	ch := (m.Ascent + m.Descent).Ceil() + 2
	cols := 0
	for _, row := range grid {
		cols = max(cols, len(row))
	}
	pad := 16
	img := image.NewRGBA(image.Rect(0, 0, cols*cw+2*pad, len(grid)*ch+2*pad))
	draw.Draw(img, img.Bounds(), &image.Uniform{defBg}, image.Point{}, draw.Src)
	for y, row := range grid {
		for x, c := range row {
			fg, bg := c.fg, c.bg
			if c.reversed {
				fg, bg = bg, fg
			}
			if c.hasBg || c.reversed {
				r := image.Rect(pad+x*cw, pad+y*ch, pad+(x+1)*cw, pad+(y+1)*ch)
				draw.Draw(img, r, &image.Uniform{bg}, image.Point{}, draw.Src)
			}
			if c.r == ' ' || c.r == 0 {
				continue
			}
			if drawBlock(img, c.r, pad+x*cw, pad+y*ch, cw, ch, fg) {
				continue
			}
			face := regular
			if c.bold {
				face = bold
			}
			d := font.Drawer{Dst: img, Src: &image.Uniform{fg}, Face: face,
				Dot: fixed.P(pad+x*cw, pad+y*ch+m.Ascent.Ceil()+1)}
			d.DrawString(string(c.r))
		}
	}
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("create png: %w", err)
	}
	if err := png.Encode(f, img); err != nil {
		_ = f.Close()
		return fmt.Errorf("encode png: %w", err)
	}
	return f.Close()
}

// drawBlock fills block and box-drawing characters to the cell edges, so
// bars and borders join up as they do in a terminal.
func drawBlock(img *image.RGBA, r rune, x, y, w, h int, c color.RGBA) bool {
	fill := func(x0, y0, x1, y1 int) {
		draw.Draw(img, image.Rect(x+x0, y+y0, x+x1, y+y1), &image.Uniform{c}, image.Point{}, draw.Over)
	}
	mx, my := w/2, h/2
	switch r {
	case '█':
		fill(0, 0, w, h)
	case '▌':
		fill(0, 0, w/2, h)
	case '░':
		shade := color.RGBA{c.R, c.G, c.B, 0x50}
		draw.Draw(img, image.Rect(x, y+1, x+w, y+h-1), &image.Uniform{shade}, image.Point{}, draw.Over)
	case '─':
		fill(0, my, w, my+1)
	case '│':
		fill(mx, 0, mx+1, h)
	case '╭':
		fill(mx, my, w, my+1)
		fill(mx, my, mx+1, h)
	case '╮':
		fill(0, my, mx+1, my+1)
		fill(mx, my, mx+1, h)
	case '╰':
		fill(mx, 0, mx+1, my+1)
		fill(mx, my, w, my+1)
	case '╯':
		fill(mx, 0, mx+1, my+1)
		fill(0, my, mx+1, my+1)
	default:
		return false
	}
	return true
}

func loadFace(path string, size float64) (font.Face, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read font (apt-get install fonts-dejavu-core): %w", err)
	}
	f, err := opentype.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("parse font: %w", err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return nil, fmt.Errorf("font face: %w", err)
	}
	return face, nil
}

// parse turns text with SGR escapes into rows of cells.
func parse(s string) [][]cell {
	var grid [][]cell
	p := pen{fg: defFg, bg: defBg}
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<22)
	for sc.Scan() {
		line := sc.Text()
		var row []cell
		rs := []rune(line)
		for i := 0; i < len(rs); i++ {
			if rs[i] == 0x1b && i+1 < len(rs) && rs[i+1] == '[' {
				j := i + 2
				for j < len(rs) && (rs[j] < 0x40 || rs[j] > 0x7e) {
					j++
				}
				if j < len(rs) && rs[j] == 'm' {
					sgr(&p, string(rs[i+2:j]))
				}
				i = j
				continue
			}
			if rs[i] < 0x20 {
				continue
			}
			row = append(row, cell{r: rs[i], fg: p.fg, bg: p.bg, bold: p.bold, hasBg: p.bgOn, reversed: p.rev})
		}
		grid = append(grid, row)
	}
	return grid
}

func sgr(p *pen, params string) {
	if params == "" {
		params = "0"
	}
	ps := strings.Split(params, ";")
	for i := 0; i < len(ps); i++ {
		n, _ := strconv.Atoi(ps[i])
		switch {
		case n == 0:
			*p = pen{fg: defFg, bg: defBg}
		case n == 1:
			p.bold = true
		case n == 22:
			p.bold = false
		case n == 7:
			p.rev = true
		case n == 27:
			p.rev = false
		case n >= 30 && n <= 37:
			p.fg = palette(n - 30)
		case n >= 90 && n <= 97:
			p.fg = palette(n - 90 + 8)
		case n == 39:
			p.fg = defFg
		case n >= 40 && n <= 47:
			p.bg, p.bgOn = palette(n-40), true
		case n >= 100 && n <= 107:
			p.bg, p.bgOn = palette(n-100+8), true
		case n == 49:
			p.bg, p.bgOn = defBg, false
		case (n == 38 || n == 48) && i+1 < len(ps):
			var c color.RGBA
			if ps[i+1] == "5" && i+2 < len(ps) {
				k, _ := strconv.Atoi(ps[i+2])
				c = palette(k)
				i += 2
			} else if ps[i+1] == "2" && i+4 < len(ps) {
				r, _ := strconv.Atoi(ps[i+2])
				g, _ := strconv.Atoi(ps[i+3])
				b, _ := strconv.Atoi(ps[i+4])
				c = color.RGBA{uint8(r), uint8(g), uint8(b), 0xff}
				i += 4
			} else {
				continue
			}
			if n == 38 {
				p.fg = c
			} else {
				p.bg, p.bgOn = c, true
			}
		}
	}
}

// palette is the xterm 256-colour palette.
func palette(k int) color.RGBA {
	base := []color.RGBA{
		{0x1b, 0x1b, 0x22, 0xff}, {0xe0, 0x6c, 0x75, 0xff}, {0x98, 0xc3, 0x79, 0xff}, {0xe5, 0xc0, 0x7b, 0xff},
		{0x61, 0xaf, 0xef, 0xff}, {0xc6, 0x78, 0xdd, 0xff}, {0x56, 0xb6, 0xc2, 0xff}, {0xd8, 0xd8, 0xd8, 0xff},
		{0x5c, 0x63, 0x70, 0xff}, {0xff, 0x7b, 0x86, 0xff}, {0xb5, 0xe8, 0x90, 0xff}, {0xff, 0xd8, 0x8a, 0xff},
		{0x7c, 0xc5, 0xff, 0xff}, {0xde, 0x92, 0xf5, 0xff}, {0x6e, 0xd4, 0xe0, 0xff}, {0xff, 0xff, 0xff, 0xff},
	}
	switch {
	case k < 16:
		return base[max(k, 0)]
	case k < 232:
		k -= 16
		lv := func(v int) uint8 {
			if v == 0 {
				return 0
			}
			return uint8(55 + v*40)
		}
		return color.RGBA{lv(k / 36), lv(k / 6 % 6), lv(k % 6), 0xff}
	case k < 256:
		v := uint8(8 + (k-232)*10)
		return color.RGBA{v, v, v, 0xff}
	}
	return defFg
}
