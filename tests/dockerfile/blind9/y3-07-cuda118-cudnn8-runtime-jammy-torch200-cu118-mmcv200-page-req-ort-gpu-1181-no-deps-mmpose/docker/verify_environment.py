import torch
print("cuda_available", torch.cuda.is_available())
