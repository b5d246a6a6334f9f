# Pattern: Express app on a Debian-based node image, a non-root user and a
# health check (the shape of many Express service templates).
FROM node:18-bookworm-slim
ENV NODE_ENV=production
WORKDIR /srv/app
COPY . .
RUN npm install --production && npm cache clean --force
USER node
EXPOSE 8080
HEALTHCHECK CMD wget -qO- http://localhost:8080/health || exit 1
CMD ["npm", "start"]
