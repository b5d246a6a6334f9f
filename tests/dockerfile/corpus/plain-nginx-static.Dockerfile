# Pattern: static site built with node and served by nginx (two stages).
FROM node:20 AS build
WORKDIR /web
COPY . .
RUN npm ci && npm run build
FROM nginx:1.27-alpine
COPY --from=build /web/dist /usr/share/nginx/html
LABEL maintainer = "web team"
