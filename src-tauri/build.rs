//! Tauri's build step, pointed at the top-level tauri.conf.json (DESIGN.md §1).
fn main() {
    tauri_build::try_build(tauri_build::Attributes::new().config_path("../tauri.conf.json")).expect("failed to run tauri-build");
}
