# SPDX-License-Identifier: Apache-2.0
# Debian packages (docs/packaging.md): `cpack -G DEB` in a build directory makes
#   ios-explorer          programs, man pages, completions, desktop entry, models, docs;
#   python3-ios-explorer  the Python module (when built);
#   ios-explorer-cuda     the CUDA/cuDNN/CUPTI backend plugin (when built): CUDA and cuDNN come
#                         from NVIDIA's packages, so this one names no dependencies and the
#                         others never need CUDA.
# Dependencies on Debian libraries are computed by dpkg-shlibdeps from the binaries.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ios-explorer)
set(CPACK_PACKAGE_VENDOR "The IOS Explorer authors")
set(CPACK_PACKAGE_CONTACT "IOS Explorer maintainers <maintainers@ios-explorer.invalid>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "See, compare and explain inter-operator schedules of neural networks on NVIDIA GPUs")
set(CPACK_PACKAGE_DESCRIPTION
    "IOS Explorer schedules the operators of a neural network into stages that run concurrently "
    "on CUDA streams (IOS, MLSys 2021) and explains why one schedule is faster than another, on "
    "a simulated GPU or measured on a real one. It contains ios-sched (command line) and "
    "ios-explorer (Qt 6 desktop application).")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://ios-explorer.invalid/")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_MAIN_PACKAGE_NAME ios-explorer)
set(CPACK_DEBIAN_MAIN_PACKAGE_SUGGESTS "ios-explorer-cuda, python3-ios-explorer")
set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-ios-explorer)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3 (>= 3.11)")
set(CPACK_DEBIAN_CUDA_PACKAGE_NAME ios-explorer-cuda)
set(CPACK_DEBIAN_CUDA_PACKAGE_SHLIBDEPS OFF)
set(CPACK_COMPONENT_PYTHON_DEPENDS main)
set(CPACK_COMPONENT_CUDA_DEPENDS main)
set(CPACK_COMPONENT_CUDA_DESCRIPTION
    "The CUDA 13 / cuDNN 9 / CUPTI backend of ios-sched measure, profile and GPU traces, loaded at "
    "run time. Needs NVIDIA's CUDA runtime, cuDNN and CUPTI libraries and a driver.")
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
include(CPack)
