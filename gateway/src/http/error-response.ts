export { errorResponse, httpStatus, toErrorResponse } from "@junction/public-api/error-response";
