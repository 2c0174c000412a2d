package ui

import ()
