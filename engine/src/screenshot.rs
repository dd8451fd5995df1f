//! Screenshots: the `screenshot` command's work between the session and Chromium's
//! `Page.captureScreenshot`, and the choice of what an annotated screenshot labels.
//!
//! Why the picture is mapped with the snapshot's own numbers: an annotated screenshot exists so
//! that a model reading the image and the snapshot text sees the same uids on the same elements.
//! So the labels come from the snapshot taken just before the picture (the page's last snapshot,
//! as `snapshot` would leave it), from exactly the interactive elements its text prints, with
//! the boxes its analysis found (viewport CSS px, clipped by overflow ancestors). They are
//! carried into image px through the captured area's origin in the document and its scale
//! (image px per CSS px: the device pixel ratio, or the image's size over the clip's), never
//! by assuming one device pixel per CSS px.
//!
//! Why the image size is read from the image: Chromium rounds clips and sizes in device px, and
//! the result reports what the image really is. PNG, JPEG and WebP each keep their size in a
//! header, read here without decoding the pixels.
//!
//! A `path` is written by [`crate::files`]: inside the allowed folders, under a temporary name
//! first, so a reader watching `path` never sees half an image.

use base64::Engine as _;

use crate::analysis::Analysis;
use crate::browser::Page;
use crate::cdp::page::{
    CaptureScreenshotFormat, CaptureScreenshotParams, GetLayoutMetricsParams, Viewport,
};
use crate::command::ImageFormat;
use crate::error::{Error, Result};
use crate::identity::UidSource;
use crate::model::{Model, NodeId, Rect};
use crate::render::a11y::{self, TreeNode};
use crate::render::annotate::Mark;
use crate::render::{dom, Mode};

/// What to take a picture of.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Area {
    /// The viewport as it shows now.
    Viewport,
    /// The whole scrollable page.
    FullPage,
    /// This rectangle of the viewport (CSS px), e.g. an element's box.
    Clip(Rect),
}

/// The page's layout now, CSS px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    /// How far the page is scrolled.
    pub scroll_x: f64,
    pub scroll_y: f64,
    /// The viewport's size.
    pub width: f64,
    pub height: f64,
    /// The size of the whole page.
    pub content_width: f64,
    pub content_height: f64,
    /// Device px per CSS px.
    pub device_pixel_ratio: f64,
}

/// Reads the page's layout (`Page.getLayoutMetrics`).
pub async fn layout(page: &Page) -> Result<Layout> {
    let m = page.send(&GetLayoutMetricsParams {}).await?;
    let css = &m.css_visual_viewport;
    let ratio = m.visual_viewport.client_width / css.client_width;
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    Ok(Layout {
        scroll_x: m.css_layout_viewport.page_x as f64,
        scroll_y: m.css_layout_viewport.page_y as f64,
        width: m.css_layout_viewport.client_width as f64,
        height: m.css_layout_viewport.client_height as f64,
        content_width: finite(m.css_content_size.width),
        content_height: finite(m.css_content_size.height),
        device_pixel_ratio: if ratio.is_finite() && ratio > 0.0 {
            ratio
        } else {
            1.0
        },
    })
}

/// A picture Chromium took: its bytes, the base64 Chromium sent, its size, and where it lies
/// on the page.
#[derive(Debug, Clone)]
pub struct Picture {
    pub bytes: Vec<u8>,
    pub base64: String,
    pub width: u32,
    pub height: u32,
    pub placement: Placement,
}

/// Where an image lies on the page: the document point (CSS px) of its top-left pixel, and
/// image px per CSS px along each axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    pub origin_x: f64,
    pub origin_y: f64,
    pub scale_x: f64,
    pub scale_y: f64,
}

impl Placement {
    /// A rectangle of the document (CSS px) in image px.
    pub fn to_image(&self, r: &Rect) -> Rect {
        Rect::new(
            (r.x - self.origin_x) * self.scale_x,
            (r.y - self.origin_y) * self.scale_y,
            r.width * self.scale_x,
            r.height * self.scale_y,
        )
    }
}

/// Takes a picture of `area` in `format` (`quality` for JPEG and WebP).
pub async fn capture(
    page: &Page,
    area: Area,
    format: ImageFormat,
    quality: Option<u8>,
) -> Result<Picture> {
    let now = layout(page).await?;
    // The clip Chromium takes is in document CSS px.
    let clip = match area {
        Area::Viewport => None,
        Area::FullPage => Some(Rect::new(
            0.0,
            0.0,
            now.content_width.max(1.0).ceil(),
            now.content_height.max(1.0).ceil(),
        )),
        Area::Clip(r) => Some(whole_px(&r.translate(now.scroll_x, now.scroll_y))),
    };
    let beyond = match (area, clip) {
        (Area::FullPage, _) => true,
        (Area::Clip(r), _) => {
            r.x < 0.0 || r.y < 0.0 || r.right() > now.width || r.bottom() > now.height
        }
        _ => false,
    };
    let params = CaptureScreenshotParams {
        format: Some(match format {
            ImageFormat::Png => CaptureScreenshotFormat::Png,
            ImageFormat::Jpeg => CaptureScreenshotFormat::Jpeg,
            ImageFormat::Webp => CaptureScreenshotFormat::Webp,
        }),
        quality: match format {
            ImageFormat::Png => None,
            _ => quality.map(i64::from),
        },
        clip: clip.map(|c| Viewport {
            x: c.x,
            y: c.y,
            width: c.width,
            height: c.height,
            scale: 1.0,
        }),
        capture_beyond_viewport: beyond.then_some(true),
        ..Default::default()
    };
    let reply = page.send(&params).await?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(reply.data.as_bytes())
        .map_err(|e| {
            Error::protocol(format!(
                "Chromium sent a screenshot that is not base64: {e}"
            ))
        })?;
    let Some((width, height)) = image_size(&bytes) else {
        return Err(Error::protocol(format!(
            "Chromium sent a screenshot that is not a {} image",
            format.name()
        )));
    };
    let placement = match clip {
        Some(c) => Placement {
            origin_x: c.x,
            origin_y: c.y,
            scale_x: f64::from(width) / c.width,
            scale_y: f64::from(height) / c.height,
        },
        None => Placement {
            origin_x: now.scroll_x,
            origin_y: now.scroll_y,
            scale_x: now.device_pixel_ratio,
            scale_y: now.device_pixel_ratio,
        },
    };
    Ok(Picture {
        bytes,
        base64: reply.data,
        width,
        height,
        placement,
    })
}

/// A rectangle grown to whole px on every side.
fn whole_px(r: &Rect) -> Rect {
    Rect::from_edges(
        r.x.floor(),
        r.y.floor(),
        r.right().ceil().max(r.x.floor() + 1.0),
        r.bottom().ceil().max(r.y.floor() + 1.0),
    )
}

/// The width and height of a PNG, JPEG or WebP image, read from its header.
pub fn image_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let be32 = |at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
    };
    let be16 = |at: usize| -> Option<u32> {
        Some(u32::from(u16::from_be_bytes(
            bytes.get(at..at + 2)?.try_into().ok()?,
        )))
    };
    let le16 = |at: usize| -> Option<u32> {
        Some(u32::from(u16::from_le_bytes(
            bytes.get(at..at + 2)?.try_into().ok()?,
        )))
    };
    let le24 = |at: usize| -> Option<u32> {
        let b = bytes.get(at..at + 3)?;
        Some(u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16)
    };
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.get(12..16) == Some(b"IHDR") {
        return Some((be32(16)?, be32(20)?));
    }
    if bytes.starts_with(&[0xFF, 0xD8]) {
        // Markers up to the first start of frame (SOF0..SOF15 but DHT, JPG and DAC).
        let mut at = 2;
        while at + 4 <= bytes.len() {
            if bytes[at] != 0xFF {
                return None;
            }
            let marker = bytes[at + 1];
            if marker == 0xFF {
                at += 1;
                continue;
            }
            if (0xC0..=0xCF).contains(&marker) && ![0xC4, 0xC8, 0xCC].contains(&marker) {
                return Some((be16(at + 7)?, be16(at + 5)?));
            }
            at += 2 + usize::try_from(be16(at + 2)?).ok()?;
        }
        return None;
    }
    if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        return match bytes.get(12..16)? {
            b"VP8 " => Some((le16(26)? & 0x3FFF, le16(28)? & 0x3FFF)),
            b"VP8L" => {
                let b = bytes.get(21..25)?;
                let bits = u32::from_le_bytes(b.try_into().ok()?);
                Some(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1))
            }
            b"VP8X" => Some((le24(24)? + 1, le24(27)? + 1)),
            _ => None,
        };
    }
    None
}

/// One element an annotated screenshot labels: its uid and its box in image px.
#[derive(Debug, Clone, PartialEq)]
pub struct Labelled {
    pub uid: String,
    pub mark: Mark,
}

/// The interactive elements the snapshot's text prints (in `mode`), in the order it prints
/// them, with their visible boxes in image px, kept where some of the box lies in the image.
/// `viewport_only`: only the part of a box inside the viewport counts (the picture shows the
/// viewport or a part of it).
pub fn labelled<U: UidSource + ?Sized>(
    model: &Model,
    analysis: &Analysis,
    uids: &U,
    mode: Mode,
    placement: &Placement,
    image: (u32, u32),
    viewport_only: bool,
) -> Vec<Labelled> {
    let printed: Vec<(NodeId, Option<String>)> = match mode {
        Mode::A11y => a11y::select(model, analysis, false)
            .items
            .iter()
            .filter_map(|item| {
                let node = match item.node {
                    TreeNode::Dom(d) => d,
                    TreeNode::Ax(a) => model.ax(a).node?,
                };
                let uid = a11y::uid(model, uids, item.node).map(|u| u.to_string());
                Some((node, uid))
            })
            .collect(),
        Mode::Dom => dom::elements(model, analysis, uids)
            .iter()
            .map(|e| (e.node, uids.dom(e.node).map(|u| u.to_string())))
            .collect(),
    };
    let view = analysis.viewport;
    let image_rect = Rect::new(0.0, 0.0, f64::from(image.0), f64::from(image.1));
    let mut out: Vec<Labelled> = Vec::new();
    for (node, uid) in printed {
        let Some(uid) = uid else { continue };
        let facts = analysis.facts(node);
        if !facts.interactive {
            continue;
        }
        let Some(mut rect) = facts.visible_rect() else {
            continue;
        };
        if viewport_only {
            let Some(r) = rect.intersect(&view.rect()) else {
                continue;
            };
            rect = r;
        }
        let in_image = placement.to_image(&rect.translate(view.scroll_x, view.scroll_y));
        if in_image.intersect(&image_rect).is_none_or(|r| r.is_empty()) {
            continue;
        }
        if out.iter().any(|l| l.uid == uid) {
            continue;
        }
        out.push(Labelled {
            mark: Mark {
                x: in_image.x,
                y: in_image.y,
                width: in_image.width,
                height: in_image.height,
                label: uid.clone(),
                occluded: analysis.click(node).occluded,
            },
            uid,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_maps_document_px_into_image_px() {
        let p = Placement {
            origin_x: 100.0,
            origin_y: 50.0,
            scale_x: 2.0,
            scale_y: 2.0,
        };
        assert_eq!(
            p.to_image(&Rect::new(110.0, 60.0, 30.0, 20.0)),
            Rect::new(20.0, 20.0, 60.0, 40.0)
        );
    }

    #[test]
    fn clips_grow_to_whole_px() {
        assert_eq!(
            whole_px(&Rect::new(10.4, 20.6, 99.2, 0.1)),
            Rect::from_edges(10.0, 20.0, 110.0, 21.0)
        );
    }

    #[test]
    fn sizes_of_the_three_formats() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&1280u32.to_be_bytes());
        png.extend_from_slice(&800u32.to_be_bytes());
        assert_eq!(image_size(&png), Some((1280, 800)));
        // SOI, an APP0 of 4 bytes, SOF0 with height 600 and width 300.
        let jpeg = [
            0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x02,
            0x58, 0x01, 0x2C, 0x03,
        ];
        assert_eq!(image_size(&jpeg), Some((300, 600)));
        let mut webp = b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f".to_vec();
        // 14 bits width-1 = 99, 14 bits height-1 = 49.
        let bits: u32 = 99 | (49 << 14);
        webp.extend_from_slice(&bits.to_le_bytes());
        assert_eq!(image_size(&webp), Some((100, 50)));
        assert_eq!(image_size(b"GIF89a"), None);
        assert_eq!(image_size(&[0xFF, 0xD8, 0xFF]), None);
    }
}
