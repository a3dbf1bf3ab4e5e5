// Bundles the extension (Node, CommonJS, `vscode` external) and the chat webview script
// (browser IIFE) with esbuild. `--tests` also bundles test/**/*.test.ts into out/test/.
import { build } from 'esbuild';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const production = process.argv.includes('--production');
const common = { bundle: true, logLevel: 'warning', sourcemap: production ? false : 'linked', absWorkingDir: root };

function testFiles(dir) {
  return readdirSync(join(root, dir)).flatMap((name) => {
    if (name === 'node_modules' || name === 'real-vscode') return [];
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') || dir.endsWith('fixtures') ? [path] : [];
  });
}

if (process.argv.includes('--tests')) {
  rmSync(join(root, 'out', 'test'), { recursive: true, force: true }); // no stale compiled tests
  await build({
    ...common,
    entryPoints: testFiles('test'),
    outdir: 'out/test',
    outbase: 'test',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  });
} else {
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  await Promise.all([
    build({
      ...common,
      entryPoints: ['src/extension.ts'],
      outfile: 'dist/extension.js',
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      external: ['vscode'],
      minify: production,
    }),
    build({
      ...common,
      entryPoints: ['src/webview/main.ts'],
      outfile: 'dist/webview.js',
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      minify: production,
    }),
  ]);
}
