//! How WebKitGTK paints the window on a machine without a graphics card.
//!
//! WebKitGTK 2.46 and later paint with Skia on the GPU through OpenGL. Where no
//! GPU is there to draw (a virtual machine, a remote desktop, a server's Xvfb),
//! Mesa answers that OpenGL in software (llvmpipe), and every paint then goes
//! through an emulated GPU: in the window's profile of a fast run (BENCHMARKS.md,
//! "The window's footprint"), llvmpipe's threads used more of the web process's
//! time than its page, script and layout together. Skia painting on the CPU
//! (`WEBKIT_SKIA_ENABLE_CPU_RENDERING`) skips that emulation; the layers are still
//! composited, so zooming the canvas stays a compositor's job.
//!
//! So, on Linux, when the machine has no render node (`/dev/dri/renderD*`, what
//! WebKit opens to reach a GPU) or Mesa is told to draw in software, the window
//! paints on the CPU. A person's own `WEBKIT_SKIA_ENABLE_CPU_RENDERING` (either
//! way) always wins, and a machine with a GPU is left to WebKit.

use std::ffi::OsString;
use std::path::Path;

/// WebKitGTK's switch to Skia painting on the CPU.
const CPU_RENDERING: &str = "WEBKIT_SKIA_ENABLE_CPU_RENDERING";

/// Chooses CPU painting where OpenGL would be software anyway. Call at the start
/// of `main`, before any thread is started (it sets an environment variable, which
/// WebKit's processes read when they start).
pub fn choose() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let software_gl = std::env::var_os("LIBGL_ALWAYS_SOFTWARE");
    if should_paint_on_cpu(std::env::var_os(CPU_RENDERING), software_gl, has_render_node(Path::new("/dev/dri"))) {
        std::env::set_var(CPU_RENDERING, "1");
    }
}

/// Whether to ask for CPU painting: not when the person chose either way; yes when
/// Mesa is told to draw in software or there is no GPU to reach.
fn should_paint_on_cpu(chosen: Option<OsString>, software_gl: Option<OsString>, render_node: bool) -> bool {
    if chosen.is_some() {
        return false;
    }
    let forced_software = software_gl.is_some_and(|v| !v.is_empty() && v != "0" && v != "false");
    forced_software || !render_node
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
    fn a_machine_without_a_render_node_paints_on_the_cpu() {
        assert!(should_paint_on_cpu(None, None, false));
    }

    #[test]
    fn a_machine_with_a_gpu_is_left_to_webkit() {
        assert!(!should_paint_on_cpu(None, None, true));
    }

    #[test]
    fn mesa_told_to_draw_in_software_paints_on_the_cpu_even_with_a_render_node() {
        assert!(should_paint_on_cpu(None, os("1"), true));
        assert!(should_paint_on_cpu(None, os("true"), true));
        assert!(!should_paint_on_cpu(None, os("0"), true));
        assert!(!should_paint_on_cpu(None, os(""), true));
    }

    #[test]
    fn the_person_s_own_choice_wins_either_way() {
        assert!(!should_paint_on_cpu(os("0"), None, false));
        assert!(!should_paint_on_cpu(os("1"), os("1"), true));
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
