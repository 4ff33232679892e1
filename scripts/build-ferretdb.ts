/** Builds the embedded FerretDB into .tools/bin (done on first start anyway; CI does it up front), and the unpatched build the differential test compares it with. */
import { ensureFerretDbBinary } from '../tools/ferretdb/build.ts';

console.log(ensureFerretDbBinary((line) => console.log(line)));
console.log(ensureFerretDbBinary((line) => console.log(line), undefined, 'upstream'));
