# Pattern: vllm/vllm-openai:latest used as is, a shell-form ENTRYPOINT that starts the OpenAI API server on a model named by an environment variable.
FROM vllm/vllm-openai:latest
ENTRYPOINT python3 -m vllm.entrypoints.openai.api_server --model ${MODEL_NAME:-meta-llama/Meta-Llama-3.1-8B-Instruct}
