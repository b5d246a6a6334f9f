# Pattern: Node service on the official node image, dependencies from the
# lockfile (npm ci), one process (as Node web services publish theirs).
FROM node:20-alpine
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY . .
EXPOSE 3000
CMD ["node", "server.js"]
