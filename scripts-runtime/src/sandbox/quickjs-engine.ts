import { readFileSync } from "node:fs";
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";

const PAGE = 64 * 1024;
/** The QuickJS build declares 16 MiB of initial memory; an import memory must be at least that. */
const INITIAL_PAGES = 256;
export const INITIAL_HEAP_BYTES = INITIAL_PAGES * PAGE;

/** One QuickJS instance and the memory it may never grow past. */
export interface QuickJSEngine {
  module: QuickJSWASMModule;
  memory: WebAssembly.Memory;
  memoryBytes: number;
}

/**
 * Creates QuickJS instances, each with its own `WebAssembly.Memory` whose maximum is the run's
 * memory limit: the runtime's own `setMemoryLimit` does not bound the heap, a memory maximum does
 * (the allocator fails, QuickJS throws "out of memory"). The wasm is compiled once per process.
 */
export class QuickJSEngines {
  private compiled: WebAssembly.Module | null = null;

  /** Compiles the wasm; call once at start so the first run does not pay for it. */
  warm(): WebAssembly.Module {
    if (!this.compiled) {
      const url = new URL(import.meta.resolve("@jitl/quickjs-wasmfile-release-sync/wasm"));
      this.compiled = new WebAssembly.Module(readFileSync(url));
    }
    return this.compiled;
  }

  async create(memoryBytes: number): Promise<QuickJSEngine> {
    const maximum = Math.max(INITIAL_PAGES, Math.floor(memoryBytes / PAGE));
    const memory = new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum });
    const module = await newQuickJSWASMModuleFromVariant(
      newVariant(variant, { wasmModule: this.warm(), wasmMemory: memory }),
    );
    return { module, memory, memoryBytes };
  }
}
