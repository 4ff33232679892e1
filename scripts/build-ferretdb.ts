/** Builds the embedded FerretDB into .tools/bin (done on first start anyway; CI does it up front). */
import { ensureFerretDbBinary } from '../src/db/ferretdb-binary.ts';

console.log(ensureFerretDbBinary((line) => console.log(line)));
