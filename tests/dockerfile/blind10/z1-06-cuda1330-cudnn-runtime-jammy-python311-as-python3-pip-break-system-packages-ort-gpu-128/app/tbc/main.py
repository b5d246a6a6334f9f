# placeholder: camera manager with onnxruntime detection
