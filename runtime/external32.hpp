// The "external32" data representation (MPI-3.1 13.5.2): every basic element big-endian, in the sizes
// of the standard's table 13.2 (MPI_LONG is 4 bytes there, MPI_WCHAR 2, MPI_LONG_DOUBLE an IEEE
// binary128 of 16), pair types and complex numbers as their two parts. What MPI_Pack_external and
// MPI_Unpack_external move; a type map is walked element by element through the datatype's segments.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/datatype.hpp"
#include "runtime/rc.hpp"

namespace fabmpi::external32 {

// Bytes `count` elements of `type` take in external32 (MPI_Pack_external_size); MPI_ERR_TYPE for a
// type with no external32 form.
Rc packed_size(const Datatype& type, std::size_t count, std::size_t* bytes);

// Converts `count` elements at `in` to external32 at `out` (room for packed_size() bytes).
// MPI_ERR_CONVERSION when a value does not fit its external size (an MPI_LONG beyond 32 bits).
Rc pack(const Datatype& type, const void* in, std::size_t count, unsigned char* out);

// The reverse: external32 at `in` into `count` elements at `out`.
Rc unpack(const Datatype& type, const unsigned char* in, std::size_t count, void* out);

}  // namespace fabmpi::external32
