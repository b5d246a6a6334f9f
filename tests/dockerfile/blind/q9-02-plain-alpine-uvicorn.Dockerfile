# Pattern: the alpine python image, requirements, uvicorn in exec form.
FROM python:3.12-alpine
COPY requirements.txt .
RUN pip install -r requirements.txt
COPY . .
CMD ["uvicorn", "main:app", "--host", "0.0.0.0"]
