int engine_placeholder() { return 0; }
