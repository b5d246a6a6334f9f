// How many kernels (entry functions a host can launch) a cubin defines.
//
// A module without kernels cannot fail a launch: nothing in it is ever
// launched, and the CUDA runtime registers it without loading code for the
// device (NVIDIA's own libcufftw and NPP core libraries ship such modules:
// one cubin with a device variable and no .text section). So only modules
// that hold kernels can predict 209 / 222.
#pragma once

#include <cstdint>
#include <optional>

#include "imagelint/bytes.h"

namespace imagelint::cuda {

// The kernels of a complete cubin (ELF64, little endian, e_machine 190):
//  - the number of FUNC symbols marked as entries (st_other bit 0x10, what
//    readelf shows as "[<other>: 10]" and cuobjdump as STO_ENTRY), when any;
//  - 0 when no section holds code at all (no SHF_EXECINSTR section with bytes);
//  - nothing when it cannot be told: the bytes do not hold the whole ELF, the
//    headers do not add up, or code exists without an entry symbol (a
//    relocatable -rdc cubin of device functions, or an ABI we do not know).
std::optional<uint64_t> CountCubinKernels(ByteView cubin);

// Bytes a cubin spans from its ELF header: the end of its section or program
// header table, whichever is further; nothing when the header does not read.
std::optional<uint64_t> CubinExtent(ByteView header);

}  // namespace imagelint::cuda
