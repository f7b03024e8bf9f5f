/*
 * utvm-build C runtime: tensor descriptor types.
 *
 * Written for utvm-build. The layout of every type below is binary compatible
 * with the DLPack C ABI (DLPack 0.8 / 1.x `DLTensor`), so a tensor built by a
 * DLPack producer (TVM, NumPy via ctypes, ...) can be passed to the runtime
 * unchanged. The include guard is the one DLPack uses, so that a translation
 * unit including both this header and the upstream one sees one definition.
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief DLPack ABI version this header is compatible with. */
#define DLPACK_VERSION 80
/*! \brief DLPack ABI revision this header is compatible with. */
#define DLPACK_ABI_VERSION 1

/*! \brief Kind of device a tensor lives on (subset; values are the DLPack ones). */
typedef enum {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16
} DLDeviceType;

/*! \brief A device: kind plus ordinal. */
typedef struct {
  DLDeviceType device_type; /*!< kind of device */
  int32_t device_id;        /*!< ordinal of the device among those of its kind */
} DLDevice;

/*! \brief Type code of the elements of a tensor (values are the DLPack ones). */
typedef enum {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6
} DLDataTypeCode;

/*! \brief Element type: code, bits per lane, lanes (1 for scalars). */
typedef struct {
  uint8_t code;   /*!< a DLDataTypeCode */
  uint8_t bits;   /*!< bits per lane, e.g. 8 for int8 */
  uint16_t lanes; /*!< number of lanes; 1 for non-vector types */
} DLDataType;

/*! \brief A tensor descriptor (no ownership). Field order and types are the DLPack ABI. */
typedef struct {
  void* data;           /*!< start of the buffer (before byte_offset) */
  DLDevice device;      /*!< where data lives */
  int32_t ndim;         /*!< number of dimensions */
  DLDataType dtype;     /*!< element type */
  int64_t* shape;       /*!< ndim extents */
  int64_t* strides;     /*!< ndim strides in elements, or NULL for compact row-major */
  uint64_t byte_offset; /*!< offset in bytes from data to the first element */
} DLTensor;

#ifdef __cplusplus
}
#endif

#endif /* DLPACK_DLPACK_H_ */
