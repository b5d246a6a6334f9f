fn main() {
    // placeholder (the public build.rs calls tauri_build::build())
}
