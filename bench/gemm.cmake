# Stage-5 GEMM benchmark: the tuned minitvm GEMM against OpenBLAS (bench/gemm_bench.cc) and
# NumPy (bench/gemm_bench.py). Needs stage 5 and libopenblas.
if(TARGET minitvm_vm_codegen)
  find_library(MINITVM_OPENBLAS_LIBRARY NAMES openblas)
  if(MINITVM_OPENBLAS_LIBRARY)
    add_executable(gemm_bench ${CMAKE_CURRENT_SOURCE_DIR}/gemm_bench.cc)
    target_link_libraries(gemm_bench PRIVATE minitvm_vm_codegen ${MINITVM_OPENBLAS_LIBRARY}
                          Threads::Threads)
    target_include_directories(gemm_bench PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  else()
    message(STATUS "gemm_bench: libopenblas not found (apt-get install libopenblas-dev); skipped")
  endif()
endif()
