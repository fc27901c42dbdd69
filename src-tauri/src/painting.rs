//! How WebKitGTK paints the window on a machine without a graphics card.
//!
//! WebKitGTK 2.46 and later paint with Skia on the GPU through OpenGL, and
//! composite the page's layers through OpenGL too. Where no GPU is there to draw
//! (a virtual machine, a remote desktop, a server's Xvfb), Mesa answers that
//! OpenGL in software (llvmpipe), and every frame then goes through an emulated
//! GPU (BENCHMARKS.md, "The window without a GPU"):
//!
//! - **Painting.** Skia painting on the CPU (`WEBKIT_SKIA_ENABLE_CPU_RENDERING`)
//!   skips the emulation for what is painted.
//! - **Compositing.** Composited through llvmpipe, each frame costs about 17 ms of
//!   CPU whatever changed (a page changing one number each frame: 4.4 CPU-seconds in
//!   3.5 s, against 0.9 painted whole), so a fast run's updates waited on the
//!   compositor, not on the page. Painted whole, the page is quicker and lighter —
//!   except for zooming among a large crew's cards, where each step would repaint
//!   every card in view on one thread, and the compositor, which scales the
//!   canvas's layer and paints its tiles on several, is faster (the whole crew far
//!   out is one picture, FarView, and quicker painted whole). So the window is
//!   composited only while the page shows such a canvas
//!   ([`Compositing::OnlyForLargeCanvases`]; the page says when, `large_canvas`).
//!
//! So, on Linux, when the machine has no render node (`/dev/dri/renderD*`, what
//! WebKit opens to reach a GPU) or Mesa is told to draw in software, the window
//! paints on the CPU and composites only large canvases. A person's own
//! `WEBKIT_SKIA_ENABLE_CPU_RENDERING` or `WEBKIT_DISABLE_COMPOSITING_MODE` (either
//! way) always wins, and a machine with a GPU is left to WebKit.

use std::ffi::OsString;
use std::path::Path;

/// WebKitGTK's switch to Skia painting on the CPU.
const CPU_RENDERING: &str = "WEBKIT_SKIA_ENABLE_CPU_RENDERING";

/// WebKitGTK's switch to turn compositing off for good.
const NO_COMPOSITING: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";

/// When the window's page is composited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compositing {
    /// As WebKit decides (a GPU, or the person chose).
    LeftToWebKit,
    /// Only while the page shows a large canvas; painted whole otherwise.
    OnlyForLargeCanvases,
}

/// Chooses CPU painting, and compositing only for large canvases, where OpenGL
/// would be software anyway. Call at the start of `main`, before any thread is
/// started (it sets an environment variable, which WebKit's processes read when
/// they start).
pub fn choose() -> Compositing {
    if !cfg!(target_os = "linux") {
        return Compositing::LeftToWebKit;
    }
    let software_gl = software_gl(std::env::var_os("LIBGL_ALWAYS_SOFTWARE"), has_render_node(Path::new("/dev/dri")));
    if software_gl && std::env::var_os(CPU_RENDERING).is_none() {
        std::env::set_var(CPU_RENDERING, "1");
    }
    compositing(software_gl, std::env::var_os(NO_COMPOSITING))
}

/// Whether OpenGL is drawn in software here: Mesa is told so, or there is no GPU
/// to reach.
fn software_gl(forced: Option<OsString>, render_node: bool) -> bool {
    forced.is_some_and(|v| !v.is_empty() && v != "0" && v != "false") || !render_node
}

/// Compositing only for large canvases where OpenGL is software, unless the person
/// chose with `WEBKIT_DISABLE_COMPOSITING_MODE` (either way).
fn compositing(software_gl: bool, chosen: Option<OsString>) -> Compositing {
    if software_gl && chosen.is_none() {
        Compositing::OnlyForLargeCanvases
    } else {
        Compositing::LeftToWebKit
    }
}

impl Compositing {
    /// Whether the page should be composited now, when it shows a large canvas
    /// (`large_canvas`) or not; None: as WebKit decides.
    pub fn composited(self, large_canvas: bool) -> Option<bool> {
        match self {
            Compositing::LeftToWebKit => None,
            Compositing::OnlyForLargeCanvases => Some(large_canvas),
        }
    }

    /// Sets the window's page to be composited or not (WebKit switches at once,
    /// the page kept as it is).
    #[cfg(target_os = "linux")]
    pub fn apply(self, webview: &tauri::webview::PlatformWebview, large_canvas: bool) {
        use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt, WebViewExt};
        let Some(composited) = self.composited(large_canvas) else { return };
        let Some(settings) = webview.inner().settings() else { return };
        let policy = if composited { HardwareAccelerationPolicy::Always } else { HardwareAccelerationPolicy::Never };
        if settings.hardware_acceleration_policy() != policy {
            settings.set_hardware_acceleration_policy(policy);
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub fn apply(self, _webview: &tauri::webview::PlatformWebview, _large_canvas: bool) {}
}

/// Whether `dri` (`/dev/dri`) holds a render node (`renderD128`, …).
fn has_render_node(dri: &Path) -> bool {
    std::fs::read_dir(dri).map(|entries| entries.flatten().any(|e| e.file_name().to_string_lossy().starts_with("renderD"))).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(s: &str) -> Option<OsString> {
        Some(OsString::from(s))
    }

    #[test]
    fn a_machine_without_a_render_node_draws_opengl_in_software() {
        assert!(software_gl(None, false));
        assert!(!software_gl(None, true));
    }

    #[test]
    fn mesa_told_to_draw_in_software_counts_even_with_a_render_node() {
        assert!(software_gl(os("1"), true));
        assert!(software_gl(os("true"), true));
        assert!(!software_gl(os("0"), true));
        assert!(!software_gl(os(""), true));
    }

    #[test]
    fn software_opengl_composites_only_large_canvases() {
        let chosen = compositing(true, None);
        assert_eq!(chosen, Compositing::OnlyForLargeCanvases);
        assert_eq!(chosen.composited(true), Some(true));
        assert_eq!(chosen.composited(false), Some(false));
    }

    #[test]
    fn a_gpu_or_the_person_s_own_choice_is_left_to_webkit() {
        assert_eq!(compositing(false, None), Compositing::LeftToWebKit);
        assert_eq!(compositing(true, os("1")), Compositing::LeftToWebKit);
        assert_eq!(compositing(true, os("0")), Compositing::LeftToWebKit);
        assert_eq!(Compositing::LeftToWebKit.composited(true), None);
        assert_eq!(Compositing::LeftToWebKit.composited(false), None);
    }

    #[test]
    fn render_nodes_are_found_by_name() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!has_render_node(dir.path()));
        std::fs::write(dir.path().join("card0"), "").unwrap();
        assert!(!has_render_node(dir.path()));
        std::fs::write(dir.path().join("renderD128"), "").unwrap();
        assert!(has_render_node(dir.path()));
        assert!(!has_render_node(&dir.path().join("missing")));
    }
}
