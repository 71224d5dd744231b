export {
  ERROR_CODES,
  TradelabError,
  isTradelabError,
  type ErrorCategory,
  type ErrorCode,
  type TradelabErrorOptions,
} from './tradelab-error.js';
export { closestMatch, editDistance } from './closest-match.js';
export { writeFileAtomic } from './atomic-write.js';
export { fileSystemError } from './file-system-error.js';
export { Rng } from './random.js';
export { compiledPath } from './compiled-path.js';
export { shellQuote } from './shell-quote.js';
export { plural } from './plural.js';
export { EventLoopTurns } from './event-loop-turns.js';
export { outsideProject, pathInsideProject } from './project-paths.js';
export { makeDirectory } from './make-directory.js';
export { outsideDates, outsideDatesText } from './outside-dates.js';
