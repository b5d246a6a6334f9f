// placeholder: web server over llama.cpp
fn main() {}
