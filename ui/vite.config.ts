import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

// The window loads the built files from ui/dist (embedded by cargo), so paths are relative.
export default defineConfig({
  plugins: [react()],
  base: "./",
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 2048 },
  // (A test's own time and its waits' (testSetup.ts) as generous as a busy machine needs.)
  test: { environment: "node", include: ["src/**/*.test.ts", "src/**/*.test.tsx"], setupFiles: ["src/testSetup.ts"], testTimeout: 60_000 },
});
