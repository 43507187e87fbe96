# One image for every Junction process; the command picks the service.
FROM oven/bun:1.4.5
WORKDIR /app
COPY package.json bun.lock bunfig.toml tsconfig.json buf.yaml buf.gen.yaml ./
COPY packages ./packages
COPY services ./services
COPY gateway ./gateway
COPY scripts-runtime ./scripts-runtime
COPY cli ./cli
COPY test/package.json ./test/package.json
COPY bench/package.json ./bench/package.json
RUN bun install --frozen-lockfile --production
ENV JUNCTION_DATA_DIR=/data
# Inside a container every interface is the container's own; `npm start` elsewhere stays on 127.0.0.1.
ENV JUNCTION_HOST=0.0.0.0
VOLUME ["/data"]
ENTRYPOINT ["bun", "cli/junction.ts"]
CMD ["start"]
