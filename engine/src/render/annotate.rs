//! Annotated screenshots: a box outline and a small uid label drawn onto a PNG for every element
//! an agent can act on, so that a model that reads images sees which uid is which element.
//!
//! Why a pure stage of its own: what to label (the snapshot's interactive elements, their boxes
//! mapped from CSS px into image px) is decided by the caller; this module only draws, so it is
//! tested without a browser, and the same drawing serves a live page and a saved image.
//!
//! Why the glyphs are a built-in bitmap font: a uid is digits and `_` (`1_17`), eleven glyphs,
//! so a 5x7 bitmap drawn at a whole-pixel scale is crisp at any size and needs no font file,
//! font parser or text shaper.
//!
//! How labels are kept legible on dense pages: every outline is drawn first and every label on
//! top of them, and each label takes the first of a few places around its box (above its top
//! left corner, then inside it, then below it, then the right-hand corners) that overlaps no
//! label placed before it; when all overlap it takes the one that overlaps least. Every place is
//! moved inside the image, so a box at an edge still gets its whole label.

use tiny_skia::{Color, Paint, Pixmap, Rect as SkRect, Transform};

use crate::error::{Error, ErrorCode, Result};

/// One element to mark: its box in image px and the text of its label (a uid).
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// The box, image px (left, top, width, height); it may reach outside the image.
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    /// The label: digits and `_` are drawn, any other character as a blank.
    pub label: String,
    /// Something else covers the element where a click would land: its outline is dashed, so
    /// that a box drawn over what covers it does not read as a visible element.
    pub occluded: bool,
}

/// Where a label is drawn: a whole-pixel rectangle inside the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabelBox {
    pub x: i32,
    pub y: i32,
    pub width: i32,
    pub height: i32,
}

impl LabelBox {
    fn overlap(&self, other: &LabelBox) -> i64 {
        let w = (self.x + self.width).min(other.x + other.width) - self.x.max(other.x);
        let h = (self.y + self.height).min(other.y + other.height) - self.y.max(other.y);
        if w > 0 && h > 0 {
            i64::from(w) * i64::from(h)
        } else {
            0
        }
    }
}

/// Width of the outline, image px.
pub const OUTLINE: i32 = 2;
/// The dashes of an occluded element's outline: drawn, then left out, image px.
const DASH: i32 = 6;
const DASH_GAP: i32 = 4;

/// The colours marks cycle through: saturated and dark or bright enough to stand out on the
/// usual white, grey and dark page backgrounds, each with the text colour readable on it.
pub const PALETTE: [([u8; 3], [u8; 3]); 8] = [
    ([230, 25, 75], [255, 255, 255]),  // red
    ([0, 92, 230], [255, 255, 255]),   // blue
    ([0, 150, 60], [255, 255, 255]),   // green
    ([240, 130, 0], [0, 0, 0]),        // orange
    ([145, 30, 180], [255, 255, 255]), // purple
    ([0, 160, 170], [0, 0, 0]),        // teal
    ([220, 0, 200], [255, 255, 255]),  // magenta
    ([120, 80, 0], [255, 255, 255]),   // brown
];

/// The colour (fill, text) of the `i`-th mark.
pub fn colour(i: usize) -> ([u8; 3], [u8; 3]) {
    PALETTE[i % PALETTE.len()]
}

/// Glyph cells of the font.
const GLYPH_W: i32 = 5;
const GLYPH_H: i32 = 7;
/// Pixels per glyph cell, space between glyphs (in cells) and padding inside a label (px).
const SCALE: i32 = 2;
const GAP: i32 = 1;
const PAD: i32 = 2;

/// The 5x7 glyphs: one byte per row, the low five bits from left (bit 4) to right (bit 0).
fn glyph(c: char) -> Option<[u8; 7]> {
    Some(match c {
        '0' => [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E],
        '1' => [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        '2' => [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F],
        '3' => [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        '4' => [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02],
        '5' => [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        '6' => [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E],
        '7' => [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        '8' => [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E],
        '9' => [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        '_' => [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F],
        _ => return None,
    })
}

/// The size of a label with `chars` characters, px.
pub fn label_size(chars: usize) -> (i32, i32) {
    let n = i32::try_from(chars).unwrap_or(i32::MAX / 64).max(1);
    let width = n * GLYPH_W * SCALE + (n - 1) * GAP * SCALE + 2 * PAD;
    (width, GLYPH_H * SCALE + 2 * PAD)
}

/// Where each mark's label goes in an image of `width` x `height` px (see the module docs).
pub fn place_labels(width: u32, height: u32, marks: &[Mark]) -> Vec<LabelBox> {
    let (iw, ih) = (to_i32(f64::from(width)), to_i32(f64::from(height)));
    let mut placed: Vec<LabelBox> = Vec::with_capacity(marks.len());
    for m in marks {
        let (w, h) = label_size(m.label.chars().count());
        let (left, top) = (to_i32(m.x.floor()), to_i32(m.y.floor()));
        let (right, bottom) = (
            to_i32((m.x + m.width).ceil()),
            to_i32((m.y + m.height).ceil()),
        );
        let candidates = [
            (left, top - h),      // above, left
            (left, top),          // inside, top left
            (left, bottom),       // below, left
            (right - w, top - h), // above, right
            (right - w, top),     // inside, top right
            (left, bottom - h),   // inside, bottom left
        ];
        let mut best: Option<(i64, LabelBox)> = None;
        for (x, y) in candidates {
            let b = LabelBox {
                x: x.min(iw - w).max(0),
                y: y.min(ih - h).max(0),
                width: w,
                height: h,
            };
            let overlap: i64 = placed.iter().map(|p| p.overlap(&b)).sum();
            if best.is_none_or(|(o, _)| overlap < o) {
                best = Some((overlap, b));
            }
            if overlap == 0 {
                break;
            }
        }
        if let Some((_, b)) = best {
            placed.push(b);
        }
    }
    placed
}

fn to_i32(v: f64) -> i32 {
    if v.is_nan() {
        0
    } else {
        v.clamp(-1.0e9, 1.0e9) as i32
    }
}

/// Draws every mark onto the PNG `png` and returns the new PNG. An empty list returns the image
/// as it is.
pub fn annotate_png(png: &[u8], marks: &[Mark]) -> Result<Vec<u8>> {
    if marks.is_empty() {
        return Ok(png.to_vec());
    }
    let mut pixmap = Pixmap::decode_png(png).map_err(|e| {
        Error::new(
            ErrorCode::ProtocolError,
            format!("the screenshot Chromium sent is not a PNG that can be read: {e}"),
        )
    })?;
    draw(&mut pixmap, marks);
    pixmap.encode_png().map_err(|e| {
        Error::new(
            ErrorCode::ProtocolError,
            format!("the annotated screenshot could not be written as PNG: {e}"),
        )
    })
}

/// Draws the outlines, then the labels on top.
fn draw(pixmap: &mut Pixmap, marks: &[Mark]) {
    let labels = place_labels(pixmap.width(), pixmap.height(), marks);
    for (i, m) in marks.iter().enumerate() {
        let (fill, _) = colour(i);
        outline(pixmap, m, fill);
    }
    for (i, (m, b)) in marks.iter().zip(&labels).enumerate() {
        let (fill, text) = colour(i);
        fill_px(pixmap, b.x, b.y, b.width, b.height, fill);
        let mut x = b.x + PAD;
        for c in m.label.chars() {
            if let Some(rows) = glyph(c) {
                for (row, bits) in (0i32..).zip(rows) {
                    for col in 0..GLYPH_W {
                        if bits & (1 << (GLYPH_W - 1 - col)) != 0 {
                            let (px, py) = (x + col * SCALE, b.y + PAD + row * SCALE);
                            fill_px(pixmap, px, py, SCALE, SCALE, text);
                        }
                    }
                }
            }
            x += (GLYPH_W + GAP) * SCALE;
        }
    }
}

/// The box's outline, [`OUTLINE`] px wide, drawn just inside its whole-pixel edges (so the
/// pixels at the box's edge take the colour).
fn outline(pixmap: &mut Pixmap, m: &Mark, rgb: [u8; 3]) {
    let (left, top) = (to_i32(m.x.round()), to_i32(m.y.round()));
    let (right, bottom) = (
        to_i32((m.x + m.width).round()),
        to_i32((m.y + m.height).round()),
    );
    let (w, h) = (right - left, bottom - top);
    if w <= 0 || h <= 0 {
        return;
    }
    let t = OUTLINE.min(w).min(h);
    if !m.occluded {
        fill_px(pixmap, left, top, w, t, rgb);
        fill_px(pixmap, left, bottom - t, w, t, rgb);
        fill_px(pixmap, left, top, t, h, rgb);
        fill_px(pixmap, right - t, top, t, h, rgb);
        return;
    }
    // Dashes from every corner along each side.
    let mut x = left;
    while x < right {
        let len = DASH.min(right - x);
        fill_px(pixmap, x, top, len, t, rgb);
        fill_px(pixmap, x, bottom - t, len, t, rgb);
        x += DASH + DASH_GAP;
    }
    let mut y = top;
    while y < bottom {
        let len = DASH.min(bottom - y);
        fill_px(pixmap, left, y, t, len, rgb);
        fill_px(pixmap, right - t, y, t, len, rgb);
        y += DASH + DASH_GAP;
    }
}

/// Fills a whole-pixel rectangle, clipped to the image, without anti-aliasing.
fn fill_px(pixmap: &mut Pixmap, x: i32, y: i32, w: i32, h: i32, rgb: [u8; 3]) {
    let (iw, ih) = (pixmap.width() as i32, pixmap.height() as i32);
    let (x0, y0) = (x.max(0), y.max(0));
    let (x1, y1) = (x.saturating_add(w).min(iw), y.saturating_add(h).min(ih));
    if x1 <= x0 || y1 <= y0 {
        return;
    }
    let Some(rect) = SkRect::from_ltrb(x0 as f32, y0 as f32, x1 as f32, y1 as f32) else {
        return;
    };
    let mut paint = Paint::default();
    paint.set_color(Color::from_rgba8(rgb[0], rgb[1], rgb[2], 255));
    paint.anti_alias = false;
    pixmap.fill_rect(rect, &paint, Transform::identity(), None);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blank_png(w: u32, h: u32) -> Vec<u8> {
        let mut p = Pixmap::new(w, h).expect("a pixmap");
        p.fill(Color::WHITE);
        p.encode_png().expect("encode")
    }

    fn mark(x: f64, y: f64, w: f64, h: f64, label: &str) -> Mark {
        Mark {
            x,
            y,
            width: w,
            height: h,
            label: label.into(),
            occluded: false,
        }
    }

    fn inside(b: &LabelBox, w: i32, h: i32) -> bool {
        b.x >= 0 && b.y >= 0 && b.x + b.width <= w && b.y + b.height <= h
    }

    #[test]
    fn an_empty_list_is_the_identity() {
        let png = blank_png(40, 30);
        assert_eq!(annotate_png(&png, &[]).expect("annotate"), png);
    }

    #[test]
    fn labels_go_above_the_box_when_there_is_room() {
        let b = place_labels(400, 300, &[mark(100.0, 100.0, 80.0, 30.0, "1_7")]);
        let (w, h) = label_size(3);
        assert_eq!(
            b,
            vec![LabelBox {
                x: 100,
                y: 100 - h,
                width: w,
                height: h
            }]
        );
    }

    #[test]
    fn labels_stay_inside_the_image_at_every_edge() {
        let (iw, ih) = (200, 120);
        let marks = [
            mark(0.0, 0.0, 50.0, 20.0, "1_1"),
            mark(190.0, 0.0, 30.0, 20.0, "1_22"),
            mark(-40.0, 100.0, 60.0, 40.0, "1_333"),
            mark(180.0, 110.0, 40.0, 30.0, "12_4444"),
        ];
        let boxes = place_labels(iw, ih, &marks);
        assert_eq!(boxes.len(), marks.len());
        for b in &boxes {
            assert!(inside(b, iw as i32, ih as i32), "{b:?}");
        }
        // At the top edge the label goes inside the box, at its top left corner.
        assert_eq!((boxes[0].x, boxes[0].y), (0, 0));
    }

    #[test]
    fn neighbouring_labels_do_not_overlap_when_there_is_another_place() {
        // Two boxes side by side, closer than a label is wide.
        let marks = [
            mark(100.0, 100.0, 20.0, 40.0, "1_10"),
            mark(110.0, 100.0, 20.0, 40.0, "1_11"),
        ];
        let b = place_labels(400, 300, &marks);
        assert_eq!(b[0].overlap(&b[1]), 0, "{b:?}");
    }

    #[test]
    fn outline_and_label_pixels_take_the_mark_colour() {
        let png = blank_png(200, 100);
        let marks = [mark(50.0, 40.0, 60.0, 30.0, "3_5")];
        let out = annotate_png(&png, &marks).expect("annotate");
        let p = Pixmap::decode_png(&out).expect("decode");
        let px = |x: u32, y: u32| {
            let c = p.pixel(x, y).expect("in the image");
            [c.red(), c.green(), c.blue()]
        };
        let (fill, _) = colour(0);
        // The box edges.
        assert_eq!(px(50, 55), fill);
        assert_eq!(px(51, 55), fill);
        assert_eq!(px(109, 55), fill);
        assert_eq!(px(80, 69), fill);
        // Inside the box, away from the label: unchanged.
        assert_eq!(px(80, 60), [255, 255, 255]);
        // The label sits above the box: its padding is the fill colour.
        let (_, h) = label_size(3);
        assert_eq!(px(51, (40 - h + 1) as u32), fill);
        // Far away: unchanged.
        assert_eq!(px(190, 95), [255, 255, 255]);
    }

    #[test]
    fn an_occluded_element_has_a_dashed_outline() {
        let png = blank_png(200, 100);
        let marks = [Mark {
            occluded: true,
            ..mark(50.0, 40.0, 60.0, 30.0, "3_5")
        }];
        let out = annotate_png(&png, &marks).expect("annotate");
        let p = Pixmap::decode_png(&out).expect("decode");
        let px = |x: u32, y: u32| {
            let c = p.pixel(x, y).expect("in the image");
            [c.red(), c.green(), c.blue()]
        };
        let (fill, _) = colour(0);
        // A dash from the bottom left corner, then a gap.
        assert_eq!(px(50, 69), fill);
        assert_eq!(px(55, 69), fill);
        assert_eq!(px(57, 69), [255, 255, 255]);
        assert_eq!(px(60, 69), fill);
    }

    #[test]
    fn a_bad_png_is_an_error() {
        let e = annotate_png(b"not a png", &[mark(0.0, 0.0, 1.0, 1.0, "1_1")]);
        assert!(e.is_err());
    }
}
