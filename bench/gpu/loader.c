/* traced-gpu-run: the small C loader of a compiled GPU model library.
 *
 *   cc -O2 bench/gpu/loader.c -o traced-gpu-run -ldl
 *   ./traced-gpu-run libmodel.so out.npy in0.npy [in1.npy ...] [--runs N]
 *
 * Loads the library (its constructor loads the kernels on the GPU; the
 * library finds libtraced_cuda_runtime.so beside itself), reads the inputs
 * from .npy files (C order, the dtypes and shapes of the model's
 * `traced_forward_signature`, which it prints), runs `traced_forward` once,
 * writes the first output to out.npy, then times N more calls (default 0)
 * and prints their median. Any CUDA error the runtime recorded
 * (`traced_cuda_last_error`) is printed and the exit status is 1. It needs
 * nothing but libc and libdl: no Python, no LLVM.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*Entry)(void **, void **);
typedef const char *(*LastError)(void);

static void die(const char *what, const char *detail) {
  fprintf(stderr, "traced-gpu-run: %s%s%s\n", what, detail ? ": " : "",
          detail ? detail : "");
  exit(1);
}

/* The payload of a .npy file (version 1 or 2, C order). */
static void *readNpy(const char *path, size_t *bytes) {
  FILE *f = fopen(path, "rb");
  if (!f)
    die("cannot open", path);
  unsigned char magic[8];
  if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "\x93NUMPY", 6))
    die("not a .npy file", path);
  uint32_t headerLen = 0;
  unsigned char len[4] = {0};
  if (fread(len, 1, magic[6] == 1 ? 2 : 4, f) != (magic[6] == 1 ? 2u : 4u))
    die("truncated .npy header", path);
  headerLen = len[0] | len[1] << 8 | (uint32_t)len[2] << 16 |
              (uint32_t)len[3] << 24;
  char *header = malloc(headerLen + 1);
  if (fread(header, 1, headerLen, f) != headerLen)
    die("truncated .npy header", path);
  header[headerLen] = 0;
  if (strstr(header, "'fortran_order': True"))
    die("Fortran-order arrays are not supported", path);
  free(header);
  long start = ftell(f);
  fseek(f, 0, SEEK_END);
  *bytes = (size_t)(ftell(f) - start);
  fseek(f, start, SEEK_SET);
  void *data = malloc(*bytes ? *bytes : 1);
  if (fread(data, 1, *bytes, f) != *bytes)
    die("truncated .npy data", path);
  fclose(f);
  return data;
}

/* numpy's descr and the byte size of an MLIR element type. */
static const char *descr(const char *element, size_t *size) {
  static const struct { const char *mlir, *npy; size_t size; } table[] = {
      {"f32", "<f4", 4}, {"f64", "<f8", 8},  {"f16", "<f2", 2},
      {"bf16", "<u2", 2}, {"i64", "<i8", 8}, {"i32", "<i4", 4},
      {"i16", "<i2", 2},  {"i8", "|i1", 1},  {"ui8", "|u1", 1},
      {"i1", "|b1", 1}};
  for (size_t i = 0; i < sizeof table / sizeof *table; ++i)
    if (!strcmp(element, table[i].mlir)) {
      *size = table[i].size;
      return table[i].npy;
    }
  die("unsupported element type", element);
  return 0;
}

/* The first result type of the signature: its shape and element type. */
static int resultShape(const char *signature, long *dims, char *element) {
  const char *p = strstr(signature, "->");
  if (!p || !(p = strstr(p, "tensor<")))
    die("no result in the signature", signature);
  p += 7;
  int rank = 0;
  while (*p >= '0' && *p <= '9') {
    dims[rank++] = strtol(p, (char **)&p, 10);
    if (*p == 'x')
      ++p;
  }
  size_t n = strcspn(p, ">");
  memcpy(element, p, n);
  element[n] = 0;
  return rank;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int runs = 0;
  const char *args[64];
  int count = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = atoi(argv[++i]);
    else if (count < 64)
      args[count++] = argv[i];
  }
  if (count < 2) {
    fprintf(stderr, "usage: %s libmodel.so out.npy [in.npy ...] [--runs N]\n",
            argv[0]);
    return 2;
  }
  void *lib = dlopen(args[0], RTLD_NOW);
  if (!lib)
    die("cannot load the model library", dlerror());
  LastError lastError = (LastError)dlsym(lib, "traced_cuda_last_error");
  if (lastError && lastError())
    die("loading the kernels failed", lastError());
  Entry entry = (Entry)dlsym(lib, "traced_forward");
  const char *signature = (const char *)dlsym(lib, "traced_forward_signature");
  if (!entry || !signature)
    die("not a traced model library (no traced_forward)", args[0]);
  printf("signature: %s\n", signature);

  void *inputs[62];
  for (int i = 2; i < count; ++i) {
    size_t bytes;
    inputs[i - 2] = readNpy(args[i], &bytes);
  }
  long dims[16];
  char element[16];
  int rank = resultShape(signature, dims, element);
  size_t size, elements = 1;
  const char *npy = descr(element, &size);
  for (int i = 0; i < rank; ++i)
    elements *= (size_t)dims[i];
  void *output = malloc(elements * size ? elements * size : 1);
  void *outputs[] = {output};

  if (entry(inputs, outputs) != 0)
    die("a run-time check of the model failed", 0);
  if (lastError && lastError())
    die("the call failed", lastError());

  FILE *f = fopen(args[1], "wb");
  if (!f)
    die("cannot write", args[1]);
  char header[256], shape[160] = "";
  for (int i = 0; i < rank; ++i)
    snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%ld,%s",
             dims[i], rank > 1 && i + 1 < rank ? " " : "");
  int n = snprintf(header, sizeof header,
                   "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                   npy, shape);
  int padded = (n + 1 + 10 + 63) / 64 * 64 - 10; /* header + '\n' */
  memset(header + n, ' ', (size_t)(padded - n - 1));
  header[padded - 1] = '\n';
  unsigned char prefix[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                              (unsigned char)(padded & 0xff),
                              (unsigned char)(padded >> 8)};
  fwrite(prefix, 1, 10, f);
  fwrite(header, 1, (size_t)padded, f);
  fwrite(output, size, elements, f);
  fclose(f);

  if (runs > 0) {
    double *times = malloc(sizeof(double) * (size_t)runs);
    for (int i = 0; i < runs; ++i) {
      double start = now();
      entry(inputs, outputs);
      times[i] = now() - start;
    }
    if (lastError && lastError())
      die("a timed call failed", lastError());
    qsort(times, (size_t)runs, sizeof(double), compare);
    printf("median of %d calls: %.3f ms\n", runs, times[runs / 2] * 1e3);
  }
  printf("wrote %s\n", args[1]);
  return 0;
}
