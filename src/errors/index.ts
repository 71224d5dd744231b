export {
  ERROR_CODES,
  TradelabError,
  isTradelabError,
  type ErrorCategory,
  type ErrorCode,
  type TradelabErrorOptions,
} from './tradelab-error.js';
export { closestMatch, editDistance } from './closest-match.js';
