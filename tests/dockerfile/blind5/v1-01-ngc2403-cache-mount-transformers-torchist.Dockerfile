# Pattern: NGC PyTorch 24.03, a pip cache mount and a list of named packages (wandb, transformers, tokenizers, torchist) added to the container's torch; nothing else.
FROM nvcr.io/nvidia/pytorch:24.03-py3
RUN --mount=type=cache,target=/root/.cache/pip \
    pip install wandb transformers tokenizers torchist
