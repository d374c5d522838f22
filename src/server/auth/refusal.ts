/**
 * Why a request is not let in, as data: auth/ decides, http/ turns it into the JSON error
 * response (`refusalResponse` in http/errors.ts), so auth/ never builds a response itself.
 */
export interface Refusal {
  status: number;
  code: string;
  message: string;
  headers?: Record<string, string>;
}
