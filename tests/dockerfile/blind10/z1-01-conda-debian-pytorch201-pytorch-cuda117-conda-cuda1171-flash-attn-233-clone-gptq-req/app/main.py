# placeholder for the LLM API server (loads llama.cpp / GPTQ / HF models)
