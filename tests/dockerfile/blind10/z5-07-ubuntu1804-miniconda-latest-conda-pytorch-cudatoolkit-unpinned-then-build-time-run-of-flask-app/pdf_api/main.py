# Reduced: loads a whole pickled model from /models at import, then serves it with Flask (blocking).
import os
import torch
from flask import Flask

DEVICE = 'cuda' if torch.cuda.is_available() else 'cpu'
MODEL_PATH = os.path.join('/', 'models', 'celeba_mask_hq-psp-densenet121.pth')
model = torch.load(MODEL_PATH, map_location=torch.device(DEVICE))
model.eval()
app = Flask(__name__)

if __name__ == "__main__":
    app.run(host='0.0.0.0', port=2080, debug=True)
