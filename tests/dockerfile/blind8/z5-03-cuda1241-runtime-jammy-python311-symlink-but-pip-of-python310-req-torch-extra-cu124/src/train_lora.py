import torch


def run_train(cfg):
    assert torch.cuda.is_available()
