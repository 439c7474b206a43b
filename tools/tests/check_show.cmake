# Runs `minitvm show INPUT` and checks it: with EXPECTED, the exit status is 0 and stdout is
# the file's text; with EXPECTED_ERROR, the exit status is 1 and stderr is the file's text
# (with the input path written as <INPUT>).
execute_process(COMMAND ${TOOL} show ${INPUT} RESULT_VARIABLE status OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(DEFINED EXPECTED)
  file(READ ${EXPECTED} want)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "minitvm show ${INPUT} failed (${status}):\n${err}")
  endif()
  if(NOT out STREQUAL want)
    message(FATAL_ERROR "minitvm show ${INPUT} printed:\n${out}\nexpected:\n${want}")
  endif()
else()
  file(READ ${EXPECTED_ERROR} want)
  string(REPLACE "<INPUT>" "${INPUT}" want "${want}")
  if(NOT status EQUAL 1)
    message(FATAL_ERROR "minitvm show ${INPUT} exited with ${status}, expected 1\n${out}${err}")
  endif()
  if(NOT err STREQUAL want)
    message(FATAL_ERROR "minitvm show ${INPUT} reported:\n${err}\nexpected:\n${want}")
  endif()
endif()
