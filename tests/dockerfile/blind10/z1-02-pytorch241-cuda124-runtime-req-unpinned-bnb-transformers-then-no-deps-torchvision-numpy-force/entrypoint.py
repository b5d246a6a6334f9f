# placeholder: loads Qwen2.5 models in 4 bit and a sentence-transformers embedder on cuda, then runs uvicorn
