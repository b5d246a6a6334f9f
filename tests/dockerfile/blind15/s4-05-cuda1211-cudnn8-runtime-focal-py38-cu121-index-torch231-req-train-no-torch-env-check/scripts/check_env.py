# Reduced: the build-time check requires Python 3.8.10 exactly, imports the training packages,
# and prints torch's CUDA status without requiring a GPU.
import importlib
import platform
import sys

if platform.python_version() != "3.8.10":
    raise RuntimeError("Python 3.8.10 required, got " + platform.python_version())
for name in ["numpy", "pandas", "yaml", "dotenv", "pydantic", "scipy", "sklearn",
             "lightgbm", "xgboost", "mlflow", "onnx", "onnxruntime", "matplotlib"]:
    importlib.import_module(name)
if "--check-torch" in sys.argv:
    import torch
    print(torch.__version__, torch.cuda.is_available())
