echo serving
