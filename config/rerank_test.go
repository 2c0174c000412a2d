package config
