# Installing minitvm: `cmake --install <build> --prefix P` (see docs/building.md).
#
# Included by the top-level CMakeLists.txt once every stage, the Python extension and the tools
# are declared. The stage libraries install themselves (minitvm_add_stage_library in
# cmake/minitvm.cmake: library, headers, exported target); this file adds what is left:
#
#   component runtime   P/lib/libminitvm_*.so (RUNPATH $ORIGIN), P/bin/minitvm (RUNPATH
#                       $ORIGIN/../lib)
#   component dev       P/include/minitvm/..., P/lib/cmake/minitvm/minitvmConfig.cmake,
#                       minitvmConfigVersion.cmake, minitvmTargets*.cmake
#   component python    (not installed by default) the Python package laid out for a wheel:
#                       with `--prefix <site-packages>/minitvm --component python` the package
#                       sources, _ffi_core*.so (RUNPATH $ORIGIN/lib) and _build_info.py land
#                       in that folder. The PEP 517 backend (python/pep517_backend) installs
#                       the default components and this one into the same folder.
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

# The version has one source: __version__ in python/minitvm/__init__.py.
file(STRINGS ${PROJECT_SOURCE_DIR}/python/minitvm/__init__.py _minitvm_version_line
     REGEX "^__version__ *= *\"")
string(REGEX REPLACE "^[^\"]*\"([^\"]+)\".*$" "\\1" MINITVM_VERSION "${_minitvm_version_line}")
if(NOT MINITVM_VERSION MATCHES "^[0-9]+(\\.[0-9]+)*$")
  message(FATAL_ERROR "minitvm: no __version__ = \"X.Y.Z\" line in python/minitvm/__init__.py "
                      "(found '${_minitvm_version_line}')")
endif()

# Stage libraries not declared through minitvm_add_stage_library (stage 3 is an INTERFACE
# library while it has no sources) are installed here.
get_property(_minitvm_installed GLOBAL PROPERTY MINITVM_INSTALLED_STAGE_TARGETS)
set(MINITVM_STAGES "")
foreach(_stage IN ITEMS lownumpy tensorir schedule relax vm_codegen)
  if(TARGET minitvm_${_stage})
    list(APPEND MINITVM_STAGES ${_stage})
    if(NOT minitvm_${_stage} IN_LIST _minitvm_installed)
      minitvm_install_stage_target(minitvm_${_stage})
    endif()
  endif()
endforeach()

# The command-line tool finds the libraries in ../lib (relative to bin/).
file(RELATIVE_PATH _minitvm_bin_to_lib /${CMAKE_INSTALL_BINDIR} /${CMAKE_INSTALL_LIBDIR})
if(TARGET minitvm)
  set_target_properties(minitvm PROPERTIES INSTALL_RPATH "$ORIGIN/${_minitvm_bin_to_lib}"
                                           INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS minitvm EXPORT minitvmTargets
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
endif()

# The CMake package: find_package(minitvm CONFIG) gives minitvm::<stage> for each stage built.
set(MINITVM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/minitvm)
install(EXPORT minitvmTargets NAMESPACE minitvm:: DESTINATION ${MINITVM_INSTALL_CMAKEDIR}
        FILE minitvmTargets.cmake COMPONENT dev)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/minitvmConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/cmake/minitvmConfig.cmake
                              INSTALL_DESTINATION ${MINITVM_INSTALL_CMAKEDIR})
# 0.x releases make no promise across minor versions.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/minitvmConfigVersion.cmake
                                 VERSION ${MINITVM_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/minitvmConfig.cmake
              ${CMAKE_BINARY_DIR}/cmake/minitvmConfigVersion.cmake
        DESTINATION ${MINITVM_INSTALL_CMAKEDIR} COMPONENT dev)

# Build facts for minitvm.support.libinfo(): a generated module next to the extension (in the
# build tree the package's __path__ includes <build>/python/minitvm; a wheel holds a copy).
set(MINITVM_GIT_COMMIT_HASH "NOT-FOUND")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse HEAD WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE _minitvm_git_hash OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE _minitvm_git_rc ERROR_QUIET TIMEOUT 10)
  if(_minitvm_git_rc EQUAL 0 AND _minitvm_git_hash)
    set(MINITVM_GIT_COMMIT_HASH ${_minitvm_git_hash})
  endif()
endif()
if(TARGET minitvm_vm_codegen AND MINITVM_LLVM_VERSION)
  set(MINITVM_INFO_USE_LLVM ON)
  set(MINITVM_INFO_LLVM_VERSION ${MINITVM_LLVM_VERSION})
else()
  set(MINITVM_INFO_USE_LLVM OFF)
  set(MINITVM_INFO_LLVM_VERSION "NOT-FOUND")
endif()
# The CUDA toolkit's version; libinfo() reports it only when a CUDA code generator is
# registered in the running library (USE_CUDA).
if(NOT DEFINED CUDAToolkit_VERSION)
  find_package(CUDAToolkit QUIET)
endif()
set(MINITVM_INFO_CUDA_VERSION "NOT-FOUND")
if(CUDAToolkit_VERSION)
  set(MINITVM_INFO_CUDA_VERSION ${CUDAToolkit_VERSION})
endif()
string(REPLACE ";" "," MINITVM_INFO_STAGES "${MINITVM_STAGES}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/build_info.py.in
               ${CMAKE_BINARY_DIR}/python/minitvm/_build_info.py @ONLY)

# The Python package as a wheel lays it out (component python; see the header of this file).
if(TARGET _ffi_core)
  set_target_properties(_ffi_core PROPERTIES INSTALL_RPATH "$ORIGIN/${CMAKE_INSTALL_LIBDIR}"
                                             INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS _ffi_core LIBRARY DESTINATION . COMPONENT python EXCLUDE_FROM_ALL)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/minitvm/ DESTINATION . COMPONENT python
          EXCLUDE_FROM_ALL PATTERN __pycache__ EXCLUDE PATTERN "*.pyc" EXCLUDE)
  install(FILES ${CMAKE_BINARY_DIR}/python/minitvm/_build_info.py DESTINATION .
          COMPONENT python EXCLUDE_FROM_ALL)
endif()
