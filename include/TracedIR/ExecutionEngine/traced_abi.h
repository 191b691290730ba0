/*===- traced_abi.h - C entry points of compiled traced models ----*- C -*-===*\
|*                                                                            *|
|* A model compiled ahead of time (`traced-translate --traced-cpu-object`,    *|
|* `traced.save_library`) exports, for its entry graph `<entry>` (forward):   *|
|*                                                                            *|
|*   int traced_<entry>(void **inputs, void **outputs);                       *|
|*     Unchecked: inputs[i] and outputs[j] are dense row-major buffers of     *|
|*     the static shapes and element types in traced_<entry>_signature.       *|
|*     Returns 0, or k > 0 when the model's run-time check k failed (an      *|
|*     index out of bounds, a boolean mask selecting another number of       *|
|*     elements than the traced one: what torch raises on); the outputs are  *|
|*     then unspecified. traced_<entry>_checked reports its message.         *|
|*                                                                            *|
|*   int traced_<entry>_checked(const traced_tensor *inputs,                  *|
|*                              int64_t num_inputs,                           *|
|*                              const traced_tensor *outputs,                 *|
|*                              int64_t num_outputs,                          *|
|*                              char *error, int64_t error_size);             *|
|*     Checks every tensor's count, dtype, rank, shape, strides (contiguous  *|
|*     row-major; a dim of size 1 may have any stride) and data pointer      *|
|*     before touching memory, then runs the model. Returns TRACED_OK, or    *|
|*     one of the codes below with a NUL-terminated message in `error`       *|
|*     (snprintf semantics: truncated to error_size; error may be NULL when  *|
|*     error_size is 0).                                                      *|
|*                                                                            *|
|*   extern const char traced_<entry>_signature[];                            *|
|*     The tensor types, e.g. "(tensor<1x8xf32>) -> tensor<1x4xf32>".        *|
|*                                                                            *|
|* A model traced with dynamic dims ("?" in the signature, each with a      *|
|* name) exports, instead of traced_<entry>:                                *|
|*                                                                            *|
|*   int traced_<entry>_sized(void **inputs, void **outputs,                  *|
|*                            const int64_t *sizes);                          *|
|*     As traced_<entry>, with sizes[k] the size of the k-th distinct dim    *|
|*     name (in order of first appearance in the inputs).                    *|
|*                                                                            *|
|*   int traced_<entry>_output_shapes(const int64_t *sizes,                   *|
|*                                    int64_t *shapes);                       *|
|*     Writes every output dim (outputs in order, all their dims) for        *|
|*     `sizes`, so that the caller can allocate the outputs; returns 0.      *|
|*                                                                            *|
|*   extern const char traced_<entry>_dim_names[];                            *|
|*     The name of each "?" of the inputs in the signature, in order,        *|
|*     separated by spaces, e.g. "batch batch" for two inputs sharing one.   *|
|*                                                                            *|
|*   traced_<entry>_checked takes the sizes from the inputs' shapes (dims    *|
|*   of one name must agree) and checks the outputs' against them.          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TRACEDIR_EXECUTIONENGINE_TRACED_ABI_H
#define TRACEDIR_EXECUTIONENGINE_TRACED_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types (bool is one byte holding 0 or 1; bfloat16 the raw bits). */
enum traced_dtype {
  TRACED_BOOL = 1,
  TRACED_UINT8 = 2,
  TRACED_INT8 = 3,
  TRACED_INT16 = 4,
  TRACED_INT32 = 5,
  TRACED_INT64 = 6,
  TRACED_FLOAT16 = 7,
  TRACED_BFLOAT16 = 8,
  TRACED_FLOAT32 = 9,
  TRACED_FLOAT64 = 10
};

/* One tensor argument. `strides` are in elements; NULL means contiguous
   row-major. `data` may be NULL only for a tensor with no elements. */
typedef struct traced_tensor {
  void *data;
  int32_t dtype;
  int32_t rank;
  const int64_t *shape;
  const int64_t *strides;
} traced_tensor;

/* Return codes of traced_<entry>_checked. */
enum traced_status {
  TRACED_OK = 0,
  TRACED_ERROR_COUNT = 1,   /* wrong number of inputs or outputs */
  TRACED_ERROR_DTYPE = 2,   /* wrong element type */
  TRACED_ERROR_RANK = 3,    /* wrong rank */
  TRACED_ERROR_SHAPE = 4,   /* a dim of another size */
  TRACED_ERROR_STRIDES = 5, /* not contiguous row-major */
  TRACED_ERROR_NULL = 6,    /* NULL data (or shape) where elements are read */
  TRACED_ERROR_CHECK = 7    /* a run-time check of the model failed */
};

#ifdef __cplusplus
}
#endif

#endif /* TRACEDIR_EXECUTIONENGINE_TRACED_ABI_H */
